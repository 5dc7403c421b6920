#!/usr/bin/env bash
# Files larger than one call's carry (64 MiB, the checkout included) to a lent GPU machine: cut
# into pieces here, carried one call each, checked and joined there. A piece is as large as fits
# beside the tracked checkout: 64 MiB less the disk space its files take (what the carry counts:
# 2,300 small files take 19 MiB for 15 MiB of bytes) and a 2 MiB margin. A fixed 50 MiB stopped
# fitting once the committed references grew.
#   size                   here: that piece size in bytes
#   cut OUT NAME PATH...   here: PATH... (relative to the working folder) as OUT/pieces/NAME.tar.NNN
#                          and OUT/pieces.sha256 (carry that with the first piece)
#   recut OUT NAME         here: OUT's pieces cut again at today's size (the checkout grew since)
#   collect FOLDER STORE   there: what one call carried in FOLDER into STORE, outside the checkout
#                          (it stays while the machine is warm)
#   join STORE NAME DEST   there: every piece checked against STORE/pieces.sha256, unpacked into DEST
#                          (emptied first), STORE removed
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
piece_size() {
  local tracked
  tracked=$(cd "$here" && git ls-files -z | du -c --block-size=1 --files0-from=- | tail -1 | cut -f1)
  echo $(( (64 - 2) * 1024 * 1024 - tracked ))
}
case ${1:?usage: pieces.sh size|cut OUT NAME PATH...|recut OUT NAME|collect FOLDER STORE|join STORE NAME DEST} in
  size) piece_size ;;
  cut)
    out=${2:?out} name=${3:?name}; shift 3
    rm -rf "$out/pieces" && mkdir -p "$out/pieces"
    tar -c "$@" | split -b "$(piece_size)" -d -a 3 - "$out/pieces/$name.tar."
    (cd "$out/pieces" && sha256sum -- *) >"$out/pieces.sha256"
    echo "$(ls "$out/pieces" | wc -l) pieces, $(du -sh "$out/pieces" | cut -f1)"
    ;;
  recut)
    out=${2:?out} name=${3:?name}
    mv "$out/pieces" "$out/pieces.old" && mkdir -p "$out/pieces"
    cat "$out/pieces.old/$name".tar.* | split -b "$(piece_size)" -d -a 3 - "$out/pieces/$name.tar."
    rm -rf "$out/pieces.old" && (cd "$out/pieces" && sha256sum -- *) >"$out/pieces.sha256"
    echo "$(ls "$out/pieces" | wc -l) pieces, $(du -sh "$out/pieces" | cut -f1)"
    ;;
  collect) mkdir -p "${3:?store}" && cp "${2:?folder}"/* "$3"/ && ls "$3" | wc -l ;;
  join)
    store=${2:?store} name=${3:?name} dest=${4:?dest}
    (cd "$store" && sha256sum --quiet -c pieces.sha256)
    rm -rf "$dest" && mkdir -p "$dest" && cat "$store/$name".tar.* | tar -C "$dest" -x
    ;;
  *) echo "unknown step $1" >&2; exit 2 ;;
esac
