<?php
// PHP ext/soap has no WS-Security: the UsernameToken (PasswordDigest) is built by hand into a
// SoapHeader, as PHP users do. Calls the authenticated charging service over https, then once
// with a wrong secret, which must be a SoapFault. Prints one JSON line.
// Usage: php wsse_php.php https://localhost:PORT/charging CA_PEM
[$url, $ca] = [$argv[1], $argv[2]];
const WSSE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
const WSU = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
const DIGEST = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordDigest';

function security($user, $secret) {
    $nonce = random_bytes(16);
    $created = gmdate('Y-m-d\TH:i:s\Z');
    $digest = base64_encode(sha1($nonce . $created . $secret, true));
    // XSD_ANYXML is written as it is, without the SoapHeader's own element: the block is the
    // whole Security element (SOAP-ENV is PHP's envelope prefix).
    $xml = '<wsse:Security xmlns:wsse="' . WSSE . '" xmlns:wsu="' . WSU . '" SOAP-ENV:mustUnderstand="1">'
        . '<wsse:UsernameToken>'
        . '<wsse:Username>' . htmlspecialchars($user) . '</wsse:Username>'
        . '<wsse:Password Type="' . DIGEST . '">' . $digest . '</wsse:Password>'
        . '<wsse:Nonce>' . base64_encode($nonce) . '</wsse:Nonce>'
        . '<wsu:Created>' . $created . '</wsu:Created></wsse:UsernameToken></wsse:Security>';
    return new SoapHeader(WSSE, 'Security', new SoapVar($xml, XSD_ANYXML), true);
}

$ctx = stream_context_create(['ssl' => ['cafile' => $ca, 'verify_peer' => true, 'peer_name' => 'localhost']]);
$client = new SoapClient($url . '?wsdl', [
    'stream_context' => $ctx,
    'cache_wsdl' => WSDL_CACHE_NONE,
    'exceptions' => true,
]);
$out = [];
$client->__setSoapHeaders([security('operator', 'operator-digest')]);
$out['cn'] = $client->credit(3, 40);
$client->__setSoapHeaders([security('operator', 'operator-digest')]);
$out['balance'] = $client->creditControl(3);
$client->__setSoapHeaders([security('operator', 'wrong')]);
try {
    $client->credit(3, 1000);
    $out['wrong'] = 'accepted';
} catch (SoapFault $f) {
    $out['wrong'] = ['code' => $f->faultcode, 'message' => $f->getMessage()];
}
echo json_encode($out), "\n";
