// The thesis's charging system (Elfwing & Paulsson 2002) as an Apache Axis 1.4 RPC service,
// rpc/encoded in urn:soapstone:charging at /axis/services/charging, deployed by DpAxisTomcatServer
// from server-config.wsdd: the peer standing for the thesis's own SOAP system (Axis on Tomcat).
// It answers appendix C's envelopes (operation element unqualified, as printed) with the return
// part named `return`, as `soapstone serve`'s /charging does; a refusal is a SOAP fault whose
// faultstring gives the reason. The store is ChargingStore on the SQLite file of
// -Dcharging.db (durable before the answer).
public final class ChargingAxisService {
    private static ChargingStore store() throws ChargingStore.Refused {
        ChargingStore s = ChargingStore.fromProperty();
        if (s == null) throw new ChargingStore.Refused("no store: the server was started without -Dcharging.db");
        return s;
    }

    public int credit(int id, int am) throws ChargingStore.Refused { return store().credit(id, am); }

    public int directDebit(int id, int am) throws ChargingStore.Refused { return store().directDebit(id, am); }

    public int creditControl(int id) throws ChargingStore.Refused { return store().creditControl(id); }
}
