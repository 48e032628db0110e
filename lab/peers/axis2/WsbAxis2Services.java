// García et al.'s card, news and shop services (seed 004) and Sam Ruby's echoFloat (seed 002) on
// Axis2 2.0, as AXIOM services (RawXMLINOutMessageReceiver: the method gets the body's first
// element as an OMElement and returns the answer's), deployed by DpAxis2Server at
// /axis2/services/{card,news,shop,echo}. The request and answer elements are those of soapstone's
// `/wsb` and `/echo` services (document/literal, children qualified in the service namespace);
// the data come from WsbData. A request that breaks a rule is answered with a SOAP Client fault
// (HTTP 500), never a partial answer.
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import javax.xml.namespace.QName;

import org.apache.axiom.om.OMAbstractFactory;
import org.apache.axiom.om.OMElement;
import org.apache.axiom.om.OMFactory;
import org.apache.axiom.om.OMNamespace;
import org.apache.axis2.AxisFault;

public final class WsbAxis2Services {
    static final QName CLIENT = new QName("http://schemas.xmlsoap.org/soap/envelope/", "Client");

    static AxisFault bad(String m) { return new AxisFault(m, CLIENT); }

    static List<OMElement> children(OMElement e, String local) {
        List<OMElement> out = new ArrayList<>();
        for (Iterator<OMElement> it = e.getChildElements(); it.hasNext();) {
            OMElement c = it.next();
            if (c.getLocalName().equals(local)) out.add(c);
        }
        return out;
    }

    static String text(OMElement e, String local) throws AxisFault {
        List<OMElement> c = children(e, local);
        if (c.isEmpty()) throw bad("`" + local + "` is missing");
        return c.get(0).getText();
    }

    static void leaf(OMFactory f, OMElement parent, OMNamespace ns, String name, Object value) {
        OMElement c = f.createOMElement(name, ns, parent);
        c.setText(String.valueOf(value));
    }

    /** /axis2/services/card: authorize → authorizeResponse/authorized. */
    public static final class Card {
        public OMElement authorize(OMElement req) throws AxisFault {
            double amount;
            try {
                amount = Double.parseDouble(text(req, "amount").trim());
            } catch (NumberFormatException e) {
                throw bad("`amount` is not a number");
            }
            boolean ok = WsbData.authorize(text(req, "account").trim(), text(req, "holder"), text(req, "userId"),
                    amount, text(req, "currency").trim(), text(req, "expiry").trim());
            OMFactory f = OMAbstractFactory.getOMFactory();
            OMNamespace ns = f.createOMNamespace("urn:soapstone:wsb:card", "tns");
            OMElement resp = f.createOMElement("authorizeResponse", ns);
            leaf(f, resp, ns, "authorized", ok);
            return resp;
        }
    }

    /** /axis2/services/news: getHeadlines → getHeadlinesResponse/headline*. */
    public static final class News {
        public OMElement getHeadlines(OMElement req) throws AxisFault {
            List<String> sources = new ArrayList<>();
            for (OMElement s : children(req, "sources")) sources.add(s.getText().trim());
            List<String[]> hs;
            try {
                hs = WsbData.headlines(text(req, "from").trim(), text(req, "to").trim(), sources);
            } catch (WsbData.Bad e) {
                throw bad(e.getMessage());
            }
            OMFactory f = OMAbstractFactory.getOMFactory();
            OMNamespace ns = f.createOMNamespace("urn:soapstone:wsb:news", "tns");
            OMElement resp = f.createOMElement("getHeadlinesResponse", ns);
            String[] names = {"source", "date", "title", "link", "summary"};
            for (String[] h : hs) {
                OMElement e = f.createOMElement("headline", ns, resp);
                for (int i = 0; i < names.length; i++) leaf(f, e, ns, names[i], h[i]);
            }
            return resp;
        }
    }

    /** /axis2/services/shop: findOffers → findOffersResponse/offer*. */
    public static final class Shop {
        public OMElement findOffers(OMElement req) throws AxisFault {
            List<String[]> props = new ArrayList<>();
            for (OMElement p : children(req, "properties")) props.add(new String[] {text(p, "name"), text(p, "value")});
            List<Object[]> offers;
            try {
                offers = WsbData.offers(text(req, "productKey"), props, text(req, "expires").trim());
            } catch (WsbData.Bad e) {
                throw bad(e.getMessage());
            }
            OMFactory f = OMAbstractFactory.getOMFactory();
            OMNamespace ns = f.createOMNamespace("urn:soapstone:wsb:shop", "tns");
            OMElement resp = f.createOMElement("findOffersResponse", ns);
            String[] names = {"provider", "productKey", "price", "currency", "stock", "deliveryDays", "validUntil",
                    "matchedProperties"};
            for (Object[] o : offers) {
                OMElement e = f.createOMElement("offer", ns, resp);
                for (int i = 0; i < names.length; i++) leaf(f, e, ns, names[i], o[i]);
            }
            return resp;
        }
    }

    /** /axis2/services/echo: Ruby's echoFloat → echoFloatResult/result (his answer's form). */
    public static final class Echo {
        public OMElement echoFloat(OMElement req) throws AxisFault {
            float v;
            try {
                v = Float.parseFloat(text(req, "input").trim());
            } catch (NumberFormatException e) {
                throw bad("`input` is not a float");
            }
            OMFactory f = OMAbstractFactory.getOMFactory();
            OMNamespace ns = f.createOMNamespace("http://tempuri.org/", "");
            OMElement resp = f.createOMElement("echoFloatResult", ns);
            leaf(f, resp, ns, "result", v);
            return resp;
        }
    }

    private WsbAxis2Services() {}
}
