// omniORB 4 server of dp::TestService (contract/dp.idl) and of the thesis's thesis::Charging
// (contract/charging.idl), the CORBA peer standing for the seeds' CORBA rows. Started as
// `dp-omniorb-server PORT [HOST [DB]]`; listens on HOST:PORT only (default 127.0.0.1; the lab
// gives the emulated LAN's address there) and publishes the objects as corbaloc::HOST:PORT/dp
// and, when DB (a SQLite file) is given, corbaloc::HOST:PORT/charging (omniINSPOA). omniORB's
// default thread-per-connection model; no tuning.
#include <cstdlib>
#include <iostream>
#include <string>

#include "charging_store.hh"
#include "dp.hh"

static const CORBA::Long MAX_SIZE = 100000;

class TestServiceImpl : public POA_dp::TestService {
 public:
  void doNothing() override {}

  char* getStringOfSize(CORBA::Long n) override {
    if (n < 0 || n > MAX_SIZE) throw CORBA::BAD_PARAM();
    char* s = CORBA::string_alloc(static_cast<CORBA::ULong>(n));
    for (CORBA::Long i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 26);
    s[n] = '\0';
    return s;
  }

  dp::Integers* getIntegersOfSize(CORBA::Long n) override {
    if (n < 0 || n > MAX_SIZE) throw CORBA::BAD_PARAM();
    dp::Integers* v = new dp::Integers(static_cast<CORBA::ULong>(n));
    v->length(static_cast<CORBA::ULong>(n));
    for (CORBA::Long i = 0; i < n; ++i) (*v)[i] = i;
    return v;
  }
};

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: dp-omniorb-server PORT [HOST [DB]]" << std::endl;
    return 2;
  }
  std::string port = argv[1];
  std::string host = argc > 2 ? argv[2] : "127.0.0.1";
  std::string endpoint = "giop:tcp:" + host + ":" + port;
  const char* options[][2] = {{"endPoint", endpoint.c_str()}, {nullptr, nullptr}};
  int orb_argc = 1;
  try {
    CORBA::ORB_var orb = CORBA::ORB_init(orb_argc, argv, "omniORB4", options);
    CORBA::Object_var obj = orb->resolve_initial_references("omniINSPOA");
    PortableServer::POA_var poa = PortableServer::POA::_narrow(obj);
    PortableServer::ObjectId_var oid = PortableServer::string_to_ObjectId("dp");
    TestServiceImpl* servant = new TestServiceImpl();
    poa->activate_object_with_id(oid, servant);
    servant->_remove_ref();
    if (argc > 3) {
      ChargingImpl* charging = new ChargingImpl(argv[3]);
      PortableServer::ObjectId_var cid = PortableServer::string_to_ObjectId("charging");
      poa->activate_object_with_id(cid, charging);
      charging->_remove_ref();
    }
    poa->the_POAManager()->activate();
    std::cout << "listening on corbaloc::" << host << ":" << port << "/dp" << std::endl;
    orb->run();
  } catch (CORBA::Exception& e) {
    std::cerr << "dp-omniorb-server: CORBA exception " << e._name() << std::endl;
    return 1;
  } catch (std::exception& e) {
    std::cerr << "dp-omniorb-server: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
