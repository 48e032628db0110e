// Sam Ruby's echoFloat (seed 002) as an ASP.NET web service (ASMX) on Mono: document/literal in
// http://tempuri.org/, the .NET default his request was written for, routed on the body's
// element (his request has no SOAPAction). .NET answers `echoFloatResponse/echoFloatResult`.
using System.Web.Services;
using System.Web.Services.Protocols;

[WebService(Namespace = "http://tempuri.org/")]
[WebServiceBinding(ConformsTo = WsiProfiles.None)]
[SoapDocumentService(RoutingStyle = SoapServiceRoutingStyle.RequestElement)]
public class EchoService : WebService
{
    [WebMethod]
    public float echoFloat(float input)
    {
        return input;
    }
}
