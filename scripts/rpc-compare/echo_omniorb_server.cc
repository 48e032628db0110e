// omniORB 4 echoFloat server for scripts/rpc-compare.sh (issue 12), configured like
// lab/peers/omniorb/server.cc: `echo-omniorb-server PORT` listens on giop:tcp:127.0.0.1:PORT,
// object key `echo` (corbaloc::127.0.0.1:PORT/echo), thread per connection.
#include <iostream>
#include <string>

#include "echo.hh"

class EchoImpl : public POA_rpccmp::Echo {
 public:
  CORBA::Float echoFloat(CORBA::Float value) override { return value; }
};

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: echo-omniorb-server PORT" << std::endl;
    return 2;
  }
  std::string endpoint = std::string("giop:tcp:127.0.0.1:") + argv[1];
  const char* options[][2] = {{"endPoint", endpoint.c_str()}, {nullptr, nullptr}};
  int orb_argc = 1;
  CORBA::ORB_var orb = CORBA::ORB_init(orb_argc, argv, "omniORB4", options);
  CORBA::Object_var obj = orb->resolve_initial_references("omniINSPOA");
  PortableServer::POA_var poa = PortableServer::POA::_narrow(obj);
  PortableServer::ObjectId_var oid = PortableServer::string_to_ObjectId("echo");
  EchoImpl* servant = new EchoImpl();
  poa->activate_object_with_id(oid, servant);
  servant->_remove_ref();
  poa->the_POAManager()->activate();
  orb->run();
  return 0;
}
