// The SOAPBuilders Round 2 base echoes (rpc/encoded, http://soapinterop.org/) on Axis 1.4, the
// interop echo service Axis itself shipped in 2001 (samples/echo), deployed as service `interop`
// in server-config.wsdd with the Round 2 struct and array types mapped. Axis decodes every
// argument by its xsi:type and encodes the result from its Java type; each echo returns its
// argument. Compiled with the other axis1 sources (javac --release 8).
import java.math.BigDecimal;
import java.util.Calendar;
import org.apache.axis.types.HexBinary;

public class InteropAxisService {
    /** `SOAPStruct` in http://soapinterop.org/xsd, a bean for Axis's BeanSerializer. */
    public static class SOAPStruct {
        private String varString;
        private int varInt;
        private float varFloat;

        public String getVarString() { return varString; }
        public void setVarString(String v) { varString = v; }
        public int getVarInt() { return varInt; }
        public void setVarInt(int v) { varInt = v; }
        public float getVarFloat() { return varFloat; }
        public void setVarFloat(float v) { varFloat = v; }
    }

    public String echoString(String inputString) { return inputString; }
    public String[] echoStringArray(String[] inputStringArray) { return inputStringArray; }
    public int echoInteger(int inputInteger) { return inputInteger; }
    public int[] echoIntegerArray(int[] inputIntegerArray) { return inputIntegerArray; }
    public float echoFloat(float inputFloat) { return inputFloat; }
    public float[] echoFloatArray(float[] inputFloatArray) { return inputFloatArray; }
    public SOAPStruct echoStruct(SOAPStruct inputStruct) { return inputStruct; }
    public SOAPStruct[] echoStructArray(SOAPStruct[] inputStructArray) { return inputStructArray; }
    public void echoVoid() {}
    public byte[] echoBase64(byte[] inputBase64) { return inputBase64; }
    public Calendar echoDate(Calendar inputDate) { return inputDate; }
    public HexBinary echoHexBinary(HexBinary inputHexBinary) { return inputHexBinary; }
    public BigDecimal echoDecimal(BigDecimal inputDecimal) { return inputDecimal; }
    public boolean echoBoolean(boolean inputBoolean) { return inputBoolean; }
}
