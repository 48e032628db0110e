<?php
// PHP ext/soap SoapServer for Davis & Parashar's TestService, from the same WSDL soapstone
// serves (contract/dp.wsdl): the peer standing for a PHP SOAP server; Ruby's echoFloat at
// /echo; and the SOAPBuilders Round 2 base echoes at /round2 (WSDL mode, contract/echo.wsdl).
// Run as a router script of PHP's built-in server: `php -S 127.0.0.1:PORT server.php` (one process, one request at a
// time, Connection: close after every answer). The WSDL is parsed once and cached on disk.
ini_set('soap.wsdl_cache_enabled', '1');
ini_set('soap.wsdl_cache', '1'); // WSDL_CACHE_DISK

const MAX_SIZE = 100000;

function check_size($n) {
    $n = (int) $n;
    if ($n < 0 || $n > MAX_SIZE) {
        throw new SoapFault('Client', "size `$n` is out of range `0..=" . MAX_SIZE . '`');
    }
    return $n;
}

function echoFloat($input) {
    if (!is_numeric($input)) {
        throw new SoapFault('Client', "`input` is not a float");
    }
    return new SoapParam(new SoapVar((float) $input, XSD_FLOAT), 'result');
}

/// The SOAPBuilders Round 2 base echoes (contract/echo.wsdl, rpc/encoded): WSDL mode maps
/// each part to a PHP value and back, so each echo returns its argument as ext/soap decoded it.
final class InteropService {
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

final class TestService {
    public function doNothing() {
    }

    public function getStringOfSize($n) {
        $n = check_size($n);
        return substr(str_repeat('abcdefghijklmnopqrstuvwxyz', intdiv($n, 26) + 1), 0, $n);
    }

    public function getIntegersOfSize($n) {
        $n = check_size($n);
        return $n === 0 ? [] : range(0, $n - 1);
    }
}

if ($_SERVER['REQUEST_METHOD'] !== 'POST') {
    http_response_code(405);
    header('Allow: POST');
    echo "POST a SOAP envelope\n";
    return true;
}
if (parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) === '/echo') {
    // Sam Ruby's echoFloat (seed 002) at /echo: non-WSDL mode in http://tempuri.org/ (his
    // request names no WSDL), answered rpc-style as `echoFloatResponse/result`.
    $echo = new SoapServer(null, ['uri' => 'http://tempuri.org/', 'soap_version' => SOAP_1_1]);
    $echo->addFunction('echoFloat');
    $echo->handle();
    return true;
}
if (parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) === '/round2') {
    $r2 = new SoapServer(__DIR__ . '/../contract/echo.wsdl', ['soap_version' => SOAP_1_1]);
    $r2->setClass('InteropService');
    $r2->handle();
    return true;
}
$server = new SoapServer(__DIR__ . '/../contract/dp.wsdl', ['soap_version' => SOAP_1_1]);
$server->setClass('TestService');
$server->handle();
