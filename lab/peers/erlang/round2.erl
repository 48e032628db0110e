%% The SOAPBuilders Round 2 base echoes (rpc/encoded, http://soapinterop.org/) for the Erlang
%% stand-in: dp_server routes POST /round2 here with the body's first element (xmerl). Each
%% argument is decoded into an Erlang term by the operation's type (ints, floats, booleans,
%% base64 and hexBinary bytes, dateTime as system time, decimal as validated text, arrays as
%% lists, SOAPStruct as its three fields) and encoded back from that term, as a SOAP stack would:
%% an argument that does not decode throws {client, Reason} (a SOAP Client fault).
-module(round2).
-export([answer/1]).

-define(NS, "http://soapinterop.org/").

answer(Op) ->
    Name = dp_server:local(Op),
    Base = lists:sublist(Name, 5, length(Name)),
    case {Name, dp_server:elements(Op)} of
        {"echoVoid", _} -> envelope(Name, "");
        {"echo" ++ _, [In | _]} ->
            Part = "output" ++ lists:sublist(dp_server:local(In), 6, 100),
            Value = case lists:suffix("Array", Base) of
                        true ->
                            Leaf = lists:sublist(Base, length(Base) - 5),
                            Items = [encode(Leaf, decode(Leaf, I)) || I <- dp_server:elements(In)],
                            [["<item>", V, "</item>"] || V <- Items];
                        false -> encode(Base, decode(Base, In))
                    end,
            envelope(Name, ["<", Part, ">", Value, "</", Part, ">"]);
        _ -> throw({client, "unknown operation `" ++ Name ++ "`"})
    end.

decode("Struct", El) ->
    F = fun(N) -> case [K || K <- dp_server:elements(El), dp_server:local(K) =:= N] of
                      [K | _] -> K;
                      [] -> throw({client, "SOAPStruct has no `" ++ N ++ "`"})
                  end end,
    {decode("String", F("varString")), decode("Integer", F("varInt")), decode("Float", F("varFloat"))};
decode(Type, El) ->
    T = dp_server:text(El),
    try leaf(Type, T)
    catch throw:R -> throw(R);
          _:_ -> throw({client, "`" ++ T ++ "` is not a valid " ++ Type})
    end.

leaf("String", T) -> T;
leaf("Integer", T) -> list_to_integer(T);
leaf("Float", T) ->
    try list_to_float(T) catch _:_ -> float(list_to_integer(T)) end;
leaf("Boolean", T) when T =:= "true"; T =:= "1" -> true;
leaf("Boolean", T) when T =:= "false"; T =:= "0" -> false;
leaf("Base64", T) -> base64:decode(T);
leaf("HexBinary", T) -> binary:decode_hex(list_to_binary(T));
leaf("Decimal", T) ->
    {match, _} = re:run(T, "^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)$"),
    T;
leaf("Date", T) -> calendar:rfc3339_to_system_time(T, [{unit, millisecond}]).

encode("Struct", {S, I, F}) ->
    ["<varString>", encode("String", S), "</varString><varInt>", encode("Integer", I),
     "</varInt><varFloat>", encode("Float", F), "</varFloat>"];
encode("String", S) -> escape(S);
encode("Integer", I) -> integer_to_list(I);
encode("Float", F) -> float_to_list(F, [short]);
encode("Boolean", B) -> atom_to_list(B);
encode("Base64", B) -> base64:encode_to_string(B);
encode("HexBinary", B) -> binary_to_list(binary:encode_hex(B));
encode("Decimal", T) -> T;
encode("Date", Ms) -> calendar:system_time_to_rfc3339(Ms, [{unit, millisecond}, {offset, "Z"}]).

escape(S) ->
    lists:flatmap(fun($<) -> "&lt;"; ($&) -> "&amp;"; ($>) -> "&gt;"; (C) -> [C] end, S).

envelope(Op, Inner) ->
    ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
     "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\" "
     "SOAP-ENV:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\"><SOAP-ENV:Body>"
     "<ns1:", Op, "Response xmlns:ns1=\"", ?NS, "\">", Inner, "</ns1:", Op, "Response>"
     "</SOAP-ENV:Body></SOAP-ENV:Envelope>"].
