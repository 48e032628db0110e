<?php
// PHP ext/soap SoapServers for crates/build-test/tests/php.rs: clients generated from each
// WSDL (and the dynamic client, for encoded header blocks) call them over loopback. Run as the
// router script of PHP's built-in server: `php -S 127.0.0.1:PORT server.php`. Each path serves
// one WSDL of testdata/ as it is (WSDL mode: the WSDL is the contract PHP checks calls against):
//   /round2      SOAPBuilders Round 2 base (rpc/encoded), soapbuilders-round2-wsdl/r2-interop.wsdl
//   /echoheader  Round 2 echoHeader (encoded header blocks), soapbuilders-round2-wsdl/r2-echoheadersvc.wsdl
//   /oneway      node-soap's one-way operation (document/literal), node-soap/wsdl/strict/one-way.wsdl
// A one-way call appends its field to the file named by the ONEWAY_LOG environment variable,
// so the test can see it arrived.
ini_set('soap.wsdl_cache_enabled', '0');

const TESTDATA = __DIR__ . '/../../../../testdata';

final class Round2 {
    public function echoString($s) { return $s; }
    public function echoStringArray($a) { return $a; }
    public function echoInteger($i) { return $i; }
    public function echoIntegerArray($a) { return $a; }
    public function echoFloat($f) { return $f; }
    public function echoFloatArray($a) { return $a; }
    public function echoStruct($s) { return $s; }
    public function echoStructArray($a) { return $a; }
    public function echoVoid() { }
    public function echoBase64($b) { return $b; }
    public function echoDate($d) { return $d; }
    public function echoHexBinary($h) { return $h; }
    public function echoDecimal($d) { return $d; }
    public function echoBoolean($b) { return $b; }
}

// Header blocks are handed to the method named after them; answers go back as header blocks
// of the response (the Round 2 echoHeader rules).
final class EchoHeader {
    private $server;
    public function __construct($server) { $this->server = $server; }
    public function echoMeStringRequest($s) {
        $this->server->addSoapHeader(new SoapHeader('http://soapinterop.org/echoheader/', 'echoMeStringResponse', $s));
    }
    public function echoMeStructRequest($s) {
        $this->server->addSoapHeader(new SoapHeader('http://soapinterop.org/echoheader/', 'echoMeStructResponse', $s));
    }
    public function echoString($s) { return $s; }
    public function echoInteger($i) { return $i; }
}

final class OneWay {
    public function OneWay($request) {
        $log = getenv('ONEWAY_LOG');
        if ($log !== false && $log !== '') {
            file_put_contents($log, $request->OneWayField . "\n", FILE_APPEND | LOCK_EX);
        }
    }
}

$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$wsdl = [
    '/round2' => 'soapbuilders-round2-wsdl/r2-interop.wsdl',
    '/echoheader' => 'soapbuilders-round2-wsdl/r2-echoheadersvc.wsdl',
    '/oneway' => 'node-soap/wsdl/strict/one-way.wsdl',
][$path] ?? null;
if ($wsdl === null) {
    http_response_code(404);
    echo "no service at $path\n";
    return true;
}
if ($_SERVER['REQUEST_METHOD'] !== 'POST') {
    http_response_code(405);
    header('Allow: POST');
    echo "POST a SOAP envelope\n";
    return true;
}
$server = new SoapServer(TESTDATA . '/' . $wsdl);
switch ($path) {
    case '/round2': $server->setClass('Round2'); break;
    case '/echoheader': $server->setObject(new EchoHeader($server)); break;
    case '/oneway': $server->setClass('OneWay'); break;
}
$server->handle();
