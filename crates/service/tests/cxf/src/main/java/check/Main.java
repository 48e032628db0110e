package check;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URL;
import java.util.List;
import java.util.Objects;

import jakarta.xml.ws.soap.SOAPFaultException;
import org.soapinterop.Color;
import org.soapinterop.EchoLiteral;
import org.soapinterop.EchoLiteralPortType;
import org.soapinterop.SoapStruct;

/** Calls the soapstone Echo service through the client CXF wsdl2java generated from its WSDL. */
public class Main {
    static int checks = 0;

    static void check(String what, Object got, Object want) {
        if (!Objects.equals(got, want)) {
            System.err.println("FAILED " + what + ": got " + got + ", want " + want);
            System.exit(1);
        }
        checks++;
    }

    static SoapStruct struct(String s, int i, float f) {
        SoapStruct st = new SoapStruct();
        st.setVarString(s);
        st.setVarInt(i);
        st.setVarFloat(f);
        return st;
    }

    static String show(SoapStruct s) {
        return s.getVarString() + "/" + s.getVarInt() + "/" + s.getVarFloat();
    }

    public static void main(String[] args) throws Exception {
        EchoLiteral service = new EchoLiteral(new URL(args[0]));
        for (EchoLiteralPortType port : List.of(service.getEchoLiteralSoap11Port(), service.getEchoLiteralSoap12Port())) {
            check("echoString", port.echoString("Hello <&> World"), "Hello <&> World");
            check("echoInt", port.echoInt(-42), -42);
            check("echoLong", port.echoLong(Long.MIN_VALUE), Long.MIN_VALUE);
            check("echoFloat", port.echoFloat(654.321f), 654.321f);
            check("echoDouble", port.echoDouble(0.1), 0.1);
            check("echoBoolean", port.echoBoolean(true), true);
            check("echoUnsignedLong", port.echoUnsignedLong(new BigInteger("18446744073709551615")), new BigInteger("18446744073709551615"));
            check("echoStruct", show(port.echoStruct(struct("a", 1, 1.5f))), "a/1/1.5");
            check("echoStructArray", port.echoStructArray(List.of(struct("a", 1, 1.5f), struct("b", 2, 2.5f))).stream().map(Main::show).toList(), List.of("a/1/1.5", "b/2/2.5"));
            check("echoIntegerArray", port.echoIntegerArray(List.of(1, 2, 3)), List.of(1, 2, 3));
            check("echoIntegerArray empty", port.echoIntegerArray(List.of()), List.of());
            check("echoStringArray", port.echoStringArray(List.of("x", "y")), List.of("x", "y"));
            check("echoOptional", port.echoOptional("x"), "x");
            check("echoOptional null", port.echoOptional(null), null);
            check("echoColor", port.echoColor(Color.DEEP_BLUE), Color.DEEP_BLUE);
            check("echoDecimal", port.echoDecimal(new BigDecimal("-1234567890.000000001")), new BigDecimal("-1234567890.000000001"));
            check("echoBase64", new String(port.echoBase64(new byte[] {1, 2, 3})), new String(new byte[] {1, 2, 3}));
            check("echoFloatRuby", port.echoFloatRuby(3.14159f), 3.14159f);
            port.echoVoid();
            try {
                port.fail("boom `x`");
                check("fail", "no fault", "a fault");
            } catch (SOAPFaultException e) {
                check("fail reason", e.getFault().getFaultString(), "boom `x`");
            } catch (RuntimeException e) {
                // CXF's own org.apache.cxf.binding.soap.SoapFault (an undeclared fault), wrapped
                Throwable root = e;
                while (root.getCause() != null) {
                    root = root.getCause();
                }
                check("fail reason", root.getMessage(), "boom `x`");
            }
        }
        System.out.println("cxf: " + checks + " checks ok");
    }
}
