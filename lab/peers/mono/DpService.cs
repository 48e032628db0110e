// Davis & Parashar's TestService (urn:test:soap, rpc/encoded) as an ASP.NET web service (ASMX)
// on Mono, the peer standing for the seeds' MS SOAP Toolkit / IIS / .NET rows (Davis & Parashar
// 2002, Zilora & Ketha 2007). setup.sh compiles this file with mcs into bin/DpService.dll beside
// dp.asmx, and xsp4 (Mono's ASP.NET server) serves the directory: the framework does the SOAP
// work (dispatch on SOAPAction, SOAP-ENC decoding and encoding of the int array), as on IIS.
// The operations follow contract/dp.wsdl: doNothing, getStringOfSize(n), getIntegersOfSize(n),
// n in 0..=100000 (a SOAP Client fault otherwise).
using System;
using System.Web.Services;
using System.Web.Services.Protocols;

[WebService(Namespace = "urn:test:soap")]
[WebServiceBinding(ConformsTo = WsiProfiles.None)]
[SoapRpcService]
public class DpService : WebService
{
    const int MaxSize = 100000;
    const string Ns = "urn:test:soap";
    const string Alphabet = "abcdefghijklmnopqrstuvwxyz";

    static void CheckSize(int n)
    {
        if (n < 0 || n > MaxSize)
            throw new SoapException("size `" + n + "` is out of range `0..=100000`",
                SoapException.ClientFaultCode);
    }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "#doNothing", RequestNamespace = Ns, ResponseNamespace = Ns)]
    public void doNothing()
    {
    }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "#getStringOfSize", RequestNamespace = Ns, ResponseNamespace = Ns)]
    [return: System.Xml.Serialization.SoapElement("return")]
    public string getStringOfSize(int n)
    {
        CheckSize(n);
        var chars = new char[n];
        for (int i = 0; i < n; i++)
            chars[i] = Alphabet[i % 26];
        return new string(chars);
    }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "#getIntegersOfSize", RequestNamespace = Ns, ResponseNamespace = Ns)]
    [return: System.Xml.Serialization.SoapElement("return")]
    public int[] getIntegersOfSize(int n)
    {
        CheckSize(n);
        var v = new int[n];
        for (int i = 0; i < n; i++)
            v[i] = i;
        return v;
    }
}
