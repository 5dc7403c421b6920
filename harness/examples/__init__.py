"""Scripts the README's worked examples run, shipped with the package so an installed tool can run
them too: ``gcm examples`` (or ``python -m harness.examples``) lists them, ``gcm examples NAME`` prints
the path to give ``repro``. Each is a script as users write them (not a scenario: no META)."""
