// The SOAPBuilders Round 2 base echoes (contract/echo.wsdl: rpc/encoded in
// http://soapinterop.org/) as an ASP.NET web service (ASMX) on Mono, as the 2001 .NET interop
// endpoint declared them: [SoapRpcService], SOAPAction http://soapinterop.org/echoX, parameters
// inputX and results outputX, SOAPStruct in http://soapinterop.org/xsd (the type the recorded
// requests name). The framework decodes and encodes every value; each method returns its
// argument. setup.sh compiles it into bin/DpService.dll beside round2.asmx.
using System;
using System.Web.Services;
using System.Web.Services.Protocols;
using System.Xml.Serialization;

[SoapType("SOAPStruct", "http://soapinterop.org/xsd")]
public class SOAPStruct
{
    public string varString;
    public int varInt;
    public float varFloat;
}

[WebService(Namespace = "http://soapinterop.org/")]
[WebServiceBinding(ConformsTo = WsiProfiles.None)]
[SoapRpcService]
public class InteropService : WebService
{
    const string Ns = "http://soapinterop.org/";

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "echoString", RequestNamespace = Ns, ResponseNamespace = Ns)]
    [return: SoapElement("outputString")]
    public string echoString(string inputString) { return inputString; }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "echoStringArray", RequestNamespace = Ns, ResponseNamespace = Ns)]
    [return: SoapElement("outputStringArray")]
    public string[] echoStringArray(string[] inputStringArray) { return inputStringArray; }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "echoInteger", RequestNamespace = Ns, ResponseNamespace = Ns)]
    [return: SoapElement("outputInteger")]
    public int echoInteger(int inputInteger) { return inputInteger; }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "echoIntegerArray", RequestNamespace = Ns, ResponseNamespace = Ns)]
    [return: SoapElement("outputIntegerArray")]
    public int[] echoIntegerArray(int[] inputIntegerArray) { return inputIntegerArray; }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "echoFloat", RequestNamespace = Ns, ResponseNamespace = Ns)]
    [return: SoapElement("outputFloat")]
    public float echoFloat(float inputFloat) { return inputFloat; }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "echoFloatArray", RequestNamespace = Ns, ResponseNamespace = Ns)]
    [return: SoapElement("outputFloatArray")]
    public float[] echoFloatArray(float[] inputFloatArray) { return inputFloatArray; }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "echoStruct", RequestNamespace = Ns, ResponseNamespace = Ns)]
    [return: SoapElement("outputStruct")]
    public SOAPStruct echoStruct(SOAPStruct inputStruct) { return inputStruct; }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "echoStructArray", RequestNamespace = Ns, ResponseNamespace = Ns)]
    [return: SoapElement("outputStructArray")]
    public SOAPStruct[] echoStructArray(SOAPStruct[] inputStructArray) { return inputStructArray; }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "echoVoid", RequestNamespace = Ns, ResponseNamespace = Ns)]
    public void echoVoid() { }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "echoBase64", RequestNamespace = Ns, ResponseNamespace = Ns)]
    [return: SoapElement("outputBase64")]
    public byte[] echoBase64(byte[] inputBase64) { return inputBase64; }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "echoDate", RequestNamespace = Ns, ResponseNamespace = Ns)]
    [return: SoapElement("outputDate")]
    public DateTime echoDate(DateTime inputDate) { return inputDate; }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "echoHexBinary", RequestNamespace = Ns, ResponseNamespace = Ns)]
    [return: SoapElement("outputHexBinary", DataType = "hexBinary")]
    public byte[] echoHexBinary([SoapElement(DataType = "hexBinary")] byte[] inputHexBinary)
    {
        return inputHexBinary;
    }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "echoDecimal", RequestNamespace = Ns, ResponseNamespace = Ns)]
    [return: SoapElement("outputDecimal")]
    public decimal echoDecimal(decimal inputDecimal) { return inputDecimal; }

    [WebMethod]
    [SoapRpcMethod(Action = Ns + "echoBoolean", RequestNamespace = Ns, ResponseNamespace = Ns)]
    [return: SoapElement("outputBoolean")]
    public bool echoBoolean(bool inputBoolean) { return inputBoolean; }
}
