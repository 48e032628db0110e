// The SOAPBuilders Interop Lab Round 2 base echoes (2001) as an Axis2 2.0 POJO service
// (RPCMessageReceiver, document/literal wrapped in http://soapinterop.org/), deployed by
// DpAxis2Server at /axis2/services/interop. Axis2 has no rpc/encoded, so the lab sends the
// recorded requests in their literal form (no xsi:type, no SOAP-ENC arrays): a wrapper element
// per operation, its parts unqualified, an array as repeated `item` children. That is exactly
// this service's document/literal form once an array is a bean with an `item` array property
// (the ArrayOfX types of the 2001 WSDL), so Axis2's own POJO data binding reads and writes every
// value but hexBinary (see echoHexBinary): nothing here parses XML by hand. echoVoid answers a
// nil `return`, Axis2's form of a void result. Each echo returns its argument as Axis2 decoded it.
//
// A value Axis2 cannot decode (a float that is not one, say) is a fault from Axis2 itself, never
// a partial answer. Every operation declares DpFault so none becomes a one-way operation.
import java.math.BigDecimal;
import java.util.Calendar;

public class InteropAxis2Service {
    /** `SOAPStruct` of http://soapinterop.org/xsd: varString, varInt, varFloat. */
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

    /** `ArrayOfstring`: repeated `item` strings. */
    public static class ArrayOfString {
        private String[] item;
        public String[] getItem() { return item; }
        public void setItem(String[] v) { item = v; }
    }

    /** `ArrayOfint`: repeated `item` ints. */
    public static class ArrayOfInt {
        private int[] item;
        public int[] getItem() { return item; }
        public void setItem(int[] v) { item = v; }
    }

    /** `ArrayOffloat`: repeated `item` floats. */
    public static class ArrayOfFloat {
        private float[] item;
        public float[] getItem() { return item; }
        public void setItem(float[] v) { item = v; }
    }

    /** `ArrayOfSOAPStruct`: repeated `item` structs. */
    public static class ArrayOfSOAPStruct {
        private SOAPStruct[] item;
        public SOAPStruct[] getItem() { return item; }
        public void setItem(SOAPStruct[] v) { item = v; }
    }

    static <T> T present(T v, String part) throws DpFault {
        if (v == null) throw new DpFault("`" + part + "` is missing");
        return v;
    }

    public String echoString(String inputString) throws DpFault { return present(inputString, "inputString"); }

    public ArrayOfString echoStringArray(ArrayOfString inputStringArray) throws DpFault {
        return present(inputStringArray, "inputStringArray");
    }

    public int echoInteger(int inputInteger) throws DpFault { return inputInteger; }

    public ArrayOfInt echoIntegerArray(ArrayOfInt inputIntegerArray) throws DpFault {
        return present(inputIntegerArray, "inputIntegerArray");
    }

    public float echoFloat(float inputFloat) throws DpFault { return inputFloat; }

    public ArrayOfFloat echoFloatArray(ArrayOfFloat inputFloatArray) throws DpFault {
        return present(inputFloatArray, "inputFloatArray");
    }

    public SOAPStruct echoStruct(SOAPStruct inputStruct) throws DpFault { return present(inputStruct, "inputStruct"); }

    public ArrayOfSOAPStruct echoStructArray(ArrayOfSOAPStruct inputStructArray) throws DpFault {
        return present(inputStructArray, "inputStructArray");
    }

    public void echoVoid() throws DpFault {}

    public byte[] echoBase64(byte[] inputBase64) throws DpFault { return present(inputBase64, "inputBase64"); }

    public Calendar echoDate(Calendar inputDate) throws DpFault { return present(inputDate, "inputDate"); }

    // Axis2's POJO binding has no hexBinary type (byte[] is base64, and ADB's HexBinary class is
    // written as a bean with a nil `bytes` field), so the hex digits arrive as a String and are
    // decoded to bytes and encoded back here; a digit that is not hex is a fault.
    public String echoHexBinary(String inputHexBinary) throws DpFault {
        String hex = present(inputHexBinary, "inputHexBinary").trim();
        if (hex.length() % 2 != 0) throw new DpFault("hexBinary `" + hex + "` has an odd number of digits");
        byte[] bytes = new byte[hex.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            int hi = Character.digit(hex.charAt(2 * i), 16), lo = Character.digit(hex.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) throw new DpFault("hexBinary `" + hex + "` is not hex");
            bytes[i] = (byte) (hi * 16 + lo);
        }
        StringBuilder out = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) out.append(String.format("%02X", b & 0xff));
        return out.toString();
    }

    public BigDecimal echoDecimal(BigDecimal inputDecimal) throws DpFault { return present(inputDecimal, "inputDecimal"); }

    public boolean echoBoolean(boolean inputBoolean) throws DpFault { return inputBoolean; }
}
