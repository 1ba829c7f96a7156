<?php
// A program for the driver's tests: every acquire reads the clock with
// millitime() (a clock notice) and answers busy.
require __DIR__ . '/../../../recipes/php/protocol.php';

serve(function ($key, $timeout) {
    millitime();
    return false;
}, function ($key, $lock) {
    return true;
});
