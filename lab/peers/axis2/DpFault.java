// The fault DpAxis2Service raises for a size out of range (and what makes its void operations
// request-response in Axis2; see DpAxis2Service).
public class DpFault extends Exception {
    public DpFault(String message) { super(message); }
}
