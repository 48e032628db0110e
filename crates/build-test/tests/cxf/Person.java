// A JAXB bean of InteropCxfService: public fields become unqualified elements.
import java.util.ArrayList;
import java.util.List;

public class Person {
    public String name;
    public int age;
    public List<String> tags = new ArrayList<>();
}
