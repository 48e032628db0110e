%% García et al.'s card, news and shop services (seed 004) and Sam Ruby's echoFloat (seed 002)
%% for the Erlang peer: dp_server routes POST /wsb/{card,news,shop} and /echo here. The rules and
%% answer shapes are those of soapstone's `/wsb` services (crates/services/src/wsb); the generated
%% headlines and offers come from the small deterministic generator the JVM peers use too
%% (lab/peers/axis2/WsbData.java: FNV-1a seeds, a 64-bit LCG), so sizes, counts and ordering
%% match soapstone's while the values differ. A request that breaks a rule throws
%% {client, Reason} (dp_server answers a SOAP Client fault); nothing here reads the clock.
-module(wsb).
-export([answer/2, fnv/1]).

-define(MASK, 16#FFFFFFFFFFFFFFFF).
-define(MAX_SOURCE_DAYS, 1000).
-define(MAX_PROPERTIES, 1000).
-define(SOURCES, ["coruna-herald", "atlantic-wire", "galicia-daily", "iberian-post", "morning-ledger",
                  "harbor-times", "tech-dispatch", "market-watcher", "science-journal", "sports-desk",
                  "world-bulletin", "city-gazette", "evening-courier", "north-star", "river-press",
                  "capital-review"]).
-define(PROVIDERS, ["acme-supply", "bluebird-trading", "cedar-wholesale", "delta-parts", "ember-retail",
                    "fjord-goods", "granite-depot", "harbor-outlet", "iris-direct", "juniper-market",
                    "kestrel-stores", "lumen-shop"]).
-define(WORDS, {"market", "council", "river", "energy", "vote", "storm", "league", "study", "harbor",
                "court", "profit", "plans", "regional", "closes", "grid", "first", "unveils", "drought",
                "union", "trade", "bridge", "treaty", "science", "rail", "season", "election", "tests",
                "launch", "award", "vaccine", "housing", "factory", "coast", "airport", "flood", "merger",
                "record", "museum", "budget", "forecast"}).

fnv(S) ->
    lists:foldl(fun(B, H) -> ((H bxor B) * 16#100000001b3) band ?MASK end,
                16#cbf29ce484222325, binary_to_list(unicode:characters_to_binary(S))).

%% The LCG: {Value in 0..Bound-1, NewState}.
next(State, Bound) ->
    S = (State * 6364136223846793005 + 1442695040888963407) band ?MASK,
    {(S bsr 33) rem Bound, S}.

sentence(G, N) -> sentence(G, N, 0, []).
sentence(G, N, N, Acc) -> {lists:flatten(lists:join(" ", lists:reverse(Acc))), G};
sentence(G, N, I, Acc) ->
    {K, G1} = next(G, tuple_size(?WORDS)),
    W = element(K + 1, ?WORDS),
    W1 = case I of 0 -> [string:to_upper(hd(W)) | tl(W)]; _ -> W end,
    sentence(G1, N, I + 1, [W1 | Acc]).

param(Name, Params) ->
    case lists:keyfind(Name, 1, Params) of
        {_, V} -> V;
        false -> throw({client, "`" ++ Name ++ "` is missing"})
    end.

date(Field, V) ->
    case io_lib:fread("~4d-~2d-~2d", V) of
        {ok, [Y, M, D], ""} when length(V) =:= 10 ->
            case calendar:valid_date(Y, M, D) of
                true -> calendar:date_to_gregorian_days(Y, M, D);
                false -> throw({client, "`" ++ Field ++ "` is not a date (YYYY-MM-DD): `" ++ V ++ "`"})
            end;
        _ -> throw({client, "`" ++ Field ++ "` is not a date (YYYY-MM-DD): `" ++ V ++ "`"})
    end.

fmt_date(Days) ->
    {Y, M, D} = calendar:gregorian_days_to_date(Days),
    lists:flatten(io_lib:format("~4..0b-~2..0b-~2..0b", [Y, M, D])).

luhn(N) ->
    Digits = length(N) >= 12 andalso length(N) =< 19 andalso lists:all(fun(C) -> C >= $0 andalso C =< $9 end, N),
    Digits andalso begin
        {Sum, _} = lists:foldl(fun(C, {S, I}) ->
                                       D0 = C - $0,
                                       D = case I rem 2 of 1 -> case D0 * 2 of X when X > 9 -> X - 9; X -> X end; 0 -> D0 end,
                                       {S + D, I + 1}
                               end, {0, 0}, lists:reverse(N)),
        Sum rem 10 =:= 0
    end.

expiry_ok(E) ->
    case io_lib:fread("~4d-~2d", E) of
        {ok, [_Y, M], ""} when length(E) =:= 7, M >= 1, M =< 12 -> E >= "2008-01";
        _ -> false
    end.

%% answer(Service, {Operation, Params}) -> the body element's iolist, in the service namespace.
answer("card", {"authorize", P}) ->
    Account = string:trim(param("account", P)),
    Amount = try list_to_float(string:trim(param("amount", P)))
             catch _:_ -> try float(list_to_integer(string:trim(param("amount", P))))
                          catch _:_ -> throw({client, "`amount` is not a number"}) end end,
    Limit = 500.0 + (fnv(Account) rem 50) * 100.0,
    Ok = luhn(Account) andalso string:trim(param("holder", P)) =/= ""
        andalso string:trim(param("userId", P)) =/= ""
        andalso lists:member(string:trim(param("currency", P)), ["EUR", "USD", "GBP", "SEK", "JPY"])
        andalso expiry_ok(string:trim(param("expiry", P)))
        andalso Amount > 0 andalso Amount =< Limit,
    wrap("urn:soapstone:wsb:card", "authorizeResponse",
         ["<authorized>", atom_to_list(Ok), "</authorized>"]);
answer("news", {"getHeadlines", P}) ->
    From = date("from", string:trim(param("from", P))),
    To = date("to", string:trim(param("to", P))),
    To >= From orelse throw({client, "`to` is before `from`"}),
    Chosen = case [string:trim(V) || {"sources", V} <- P] of [] -> ?SOURCES; L -> L end,
    [lists:member(S, ?SOURCES) orelse throw({client, "unknown source `" ++ S ++ "`"}) || S <- Chosen],
    Selected = (To - From + 1) * length(Chosen),
    Selected =< ?MAX_SOURCE_DAYS orelse
        throw({client, "query selects `" ++ integer_to_list(Selected) ++ "` source-days; at most `1000`"}),
    Items = [headlines(S, fmt_date(D)) || S <- Chosen, D <- lists:seq(From, To)],
    wrap("urn:soapstone:wsb:news", "getHeadlinesResponse", Items);
answer("shop", {"findOffers", P}) ->
    Key = string:trim(param("productKey", P)),
    Key =/= "" orelse throw({client, "`productKey` is empty"}),
    Props = [{param("name", Kids), param("value", Kids)} || {"properties", _, Kids} <- props(P)],
    length(Props) =< ?MAX_PROPERTIES orelse throw({client, "too many properties; at most `1000`"}),
    Expires = date("expires", string:trim(param("expires", P))),
    Epoch = calendar:date_to_gregorian_days(2008, 1, 1),
    Base = 10.0 + (fnv(Key) rem 99000) / 100.0,
    Offers = lists:sort(fun({Pa, Na, _}, {Pb, Nb, _}) -> {Pa, Na} =< {Pb, Nb} end,
                        [O || {I, Prov} <- lists:zip(lists:seq(0, 11), ?PROVIDERS),
                              O <- offer(I, Prov, Key, Base, Epoch, Expires, Props)]),
    wrap("urn:soapstone:wsb:shop", "findOffersResponse", [X || {_, _, X} <- Offers]);
answer("echo", {"echoFloat", P}) ->
    T = string:trim(param("input", P)),
    V = try list_to_float(T) catch _:_ ->
            try float(list_to_integer(T)) catch _:_ -> throw({client, "`input` is not a float"}) end end,
    ["<echoFloatResult xmlns=\"http://tempuri.org/\"><result>",
     float_to_list(V, [short]), "</result></echoFloatResult>"];
answer(Service, {Op, _}) ->
    throw({client, "unknown operation `" ++ Op ++ "` of service `" ++ Service ++ "`"}).

%% The request's structured parameters (dp_server gives shop's <properties> as {Name, Text, Kids}).
props(P) -> [X || X = {_, _, _} <- P].

headlines(Source, Date) ->
    {Count0, G0} = next(fnv(Source ++ "/" ++ Date), 5),
    headline(G0, Source, Date, 0, 8 + Count0, []).

headline(_G, _S, _D, N, N, Acc) -> lists:reverse(Acc);
headline(G, S, D, Rank, N, Acc) ->
    {Tw, G1} = next(G, 5),
    {Title, G2} = sentence(G1, 6 + Tw),
    {Sw, G3} = next(G2, 16),
    {Summary, G4} = sentence(G3, 25 + Sw),
    H = ["<headline><source>", S, "</source><date>", D, "</date><title>", Title,
         "</title><link>http://news.example.org/", S, "/", D, "/", integer_to_list(Rank),
         "</link><summary>", Summary, ".</summary></headline>"],
    headline(G4, S, D, Rank + 1, N, [H | Acc]).

offer(I, Prov, Key, Base, Epoch, Expires, Props) ->
    G0 = fnv(Prov ++ "/" ++ Key),
    {Has, G1} = next(G0, 10),
    case Has < 7 of
        false -> [];
        true ->
            {V, G2} = next(G1, 730),
            {Pct, G3} = next(G2, 31),
            {Stock, G4} = next(G3, 500),
            {Del, _} = next(G4, 14),
            Price = round(Base * (85 + Pct)) / 100,
            Valid = Epoch + V,
            case Valid < Expires of
                true -> [];
                false ->
                    Matched = length([x || {Nm, Vl} <- Props,
                                           element(1, next(fnv(Prov ++ "/" ++ Nm ++ "=" ++ Vl), 10)) < 8]),
                    _ = I,
                    [{Price, Prov,
                      ["<offer><provider>", Prov, "</provider><productKey>", esc(Key), "</productKey><price>",
                       float_to_list(Price, [short]), "</price><currency>EUR</currency><stock>",
                       integer_to_list(Stock), "</stock><deliveryDays>", integer_to_list(1 + Del),
                       "</deliveryDays><validUntil>", fmt_date(Valid), "</validUntil><matchedProperties>",
                       integer_to_list(Matched), "</matchedProperties></offer>"]}]
            end
    end.

esc(S) ->
    lists:flatmap(fun($<) -> "&lt;"; ($&) -> "&amp;"; ($>) -> "&gt;"; (C) -> [C] end, S).

wrap(Ns, Name, Inner) ->
    ["<tns:", Name, " xmlns:tns=\"", Ns, "\" xmlns=\"", Ns, "\">", Inner, "</tns:", Name, ">"].
