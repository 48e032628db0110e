// The contact book of Zilora & Ketha (seed 003) for the CXF peer: 13,000 contacts ("First Last",
// "AAA-EEE-NNNN") generated at start from FNV-1a seeds and a 64-bit LCG (the Mono peer's
// ContactsService.cs uses the same generator), so the names differ from soapstone's ChaCha8 book
// but counts, fields and sizes match. Never reads the clock.
import java.util.ArrayList;
import java.util.List;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlType;

public final class ContactsData {
    static final int COUNT = 13000;
    static final String[] FIRST = {"Ada", "Alan", "Alice", "Amir", "Ana", "Anders", "Ben", "Carla", "Chen", "Dana",
            "Diego", "Elena", "Erik", "Fatima", "Grace", "Hugo", "Ines", "Ivan", "Julia", "Kenji", "Laura", "Leo",
            "Maria", "Mei", "Nadia", "Noah", "Omar", "Pedro", "Priya", "Rosa", "Sam", "Sofia", "Tom", "Vera", "Zoe"};
    static final String[] LAST = {"Abbott", "Alvarez", "Andersson", "Baker", "Berg", "Blanco", "Brown", "Carter",
            "Chen", "Costa", "Davis", "Dubois", "Evans", "Garcia", "Hansen", "Ito", "Jones", "Kim", "Lopez", "Moreau",
            "Nakamura", "Novak", "Patel", "Rossi", "Silva", "Smith", "Tanaka", "Wilson", "Young", "Zhang"};
    static final String[] AREA = {"585", "315", "607", "716", "518", "212"};

    @XmlAccessorType(XmlAccessType.FIELD)
    @XmlType(name = "Contact", namespace = ContactsCxfService.NS, propOrder = {"name", "phone"})
    public static final class Contact {
        @XmlElement(namespace = ContactsCxfService.NS, required = true)
        public String name;
        @XmlElement(namespace = ContactsCxfService.NS, required = true)
        public String phone;

        public Contact() {}

        Contact(String name, String phone) {
            this.name = name;
            this.phone = phone;
        }
    }

    static final Contact[] BOOK = new Contact[COUNT];
    static {
        long state = 0xcbf29ce484222325L;
        for (byte b : "contacts".getBytes()) {
            state ^= (b & 0xff);
            state *= 0x100000001b3L;
        }
        for (int i = 0; i < COUNT; i++) {
            state = state * 6364136223846793005L + 1442695040888963407L;
            long r = state >>> 16;
            String name = FIRST[(int) (r % FIRST.length)] + " " + LAST[(int) ((r / 64) % LAST.length)];
            String phone = AREA[(int) ((r / 4096) % AREA.length)] + "-" + (200 + (r / 32768) % 800) + "-"
                    + String.format("%04d", (r / 100000000L) % 10000);
            BOOK[i] = new Contact(name, phone);
        }
    }

    static void check(String what, int v, int max) {
        if (v < 0 || v > max) throw new IllegalArgumentException(what + " `" + v + "` is out of range `0..=" + max + "`");
    }

    static List<String> names(int n) {
        check("n", n, COUNT);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) out.add(BOOK[i].name);
        return out;
    }

    static List<Contact> contacts(int n) {
        check("n", n, COUNT);
        List<Contact> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) out.add(BOOK[i]);
        return out;
    }

    static Contact contact(int index) {
        check("index", index, COUNT - 1);
        return BOOK[index];
    }

    private ContactsData() {}
}
