<?php
// PHP ext/soap SoapClient (from contract/dp.wsdl), speaking the lab's peer-client protocol
// (docs/lab.md): `php client.php URL OP N WARMUP_S WINDOW_S` calls OP one at a time for WARMUP_S
// seconds (not recorded), then WINDOW_S seconds, checks every answer and prints one JSON line
// {"ok","errors","first_error","samples_us"}. The peer standing for Zilora & Ketha's PHP client.
const MAX_SAMPLES = 1000000;

if ($argc !== 6) {
    fwrite(STDERR, "usage: php client.php URL OP N WARMUP_S WINDOW_S\n");
    exit(2);
}
[$_, $url, $op, $n, $warmup, $window] = $argv;
$n = (int) $n;
$client = new SoapClient(__DIR__ . '/../contract/dp.wsdl', [
    'location' => $url,
    'cache_wsdl' => WSDL_CACHE_MEMORY,
    'keep_alive' => true,
    'exceptions' => true,
]);
$alphabet = 'abcdefghijklmnopqrstuvwxyz';
$want_string = substr(str_repeat($alphabet, intdiv($n, 26) + 1), 0, $n);
$want_ints = $n === 0 ? [] : range(0, $n - 1);

function call_once($client, $op, $n, $want_string, $want_ints) {
    switch ($op) {
        case 'doNothing':
            $client->doNothing();
            return null;
        case 'getStringOfSize':
            $s = $client->getStringOfSize($n);
            return $s === $want_string ? null : 'wrong string';
        case 'getIntegersOfSize':
            $v = $client->getIntegersOfSize($n);
            if (!is_array($v)) {
                return 'not an array';
            }
            return array_map('intval', $v) === $want_ints ? null : 'wrong integers';
        default:
            return "unknown operation `$op`";
    }
}

$warm_end = hrtime(true) + (int) ((float) $warmup * 1e9);
$end = $warm_end + (int) ((float) $window * 1e9);
$samples = [];
$ok = 0;
$errors = 0;
$first_error = null;
while (true) {
    $t0 = hrtime(true);
    if ($t0 >= $end && $ok + $errors > 0) {
        break;
    }
    try {
        $err = call_once($client, $op, $n, $want_string, $want_ints);
    } catch (Throwable $e) {
        $err = get_class($e) . ': ' . $e->getMessage();
    }
    $t1 = hrtime(true);
    if ($t0 < $warm_end) {
        continue;
    }
    if ($err !== null) {
        $errors++;
        $first_error ??= $err;
        continue;
    }
    $ok++;
    if (count($samples) < MAX_SAMPLES) {
        $samples[] = round(($t1 - $t0) / 1000, 2);
    }
}
echo json_encode([
    'ok' => $ok,
    'errors' => $errors,
    'first_error' => $first_error,
    'samples_us' => $samples,
]), "\n";
