// The SOAPBuilders Round 2 `SOAPStruct` (http://soapinterop.org/xsd) as a bean for Apache SOAP's
// BeanSerializer (DeployedServices.xml maps the type to it): a public no-argument constructor
// and a getter and setter per field, which is all BeanSerializer reads.
public class SOAPStruct {
    private String varString;
    private int varInt;
    private float varFloat;

    public SOAPStruct() {}

    public String getVarString() { return varString; }
    public void setVarString(String v) { varString = v; }
    public int getVarInt() { return varInt; }
    public void setVarInt(int v) { varInt = v; }
    public float getVarFloat() { return varFloat; }
    public void setVarFloat(float v) { varFloat = v; }
}
