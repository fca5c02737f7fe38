#!/bin/sh
# Installs the Debian packages named in mk/deps.list whose check fails.
# A no-op when everything is present; needs root (or sudo) otherwise.
set -eu
list="$(dirname "$0")/deps.list"
missing=""
while read -r kind name pkg; do
  case "$kind" in ''|'#'*) continue ;; esac
  case "$kind" in
    pc)   pkg-config --exists "$name" 2>/dev/null && continue ;;
    cmd)  command -v "$name" >/dev/null 2>&1 && continue ;;
    file) [ -e "$name" ] && continue ;;
    *)    echo "deps.list: unknown kind '$kind'" >&2; exit 2 ;;
  esac
  # pkg-config itself may be what is missing: then every pc line is.
  case " $missing " in *" $pkg "*) ;; *) missing="$missing $pkg" ;; esac
done < "$list"
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing"
if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
  echo "deps: need root to install:$missing" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
# Fresh machines often have no package lists yet; retry once after an update.
$sudo apt-get install -y --no-install-recommends $missing \
  || { $sudo apt-get update && $sudo apt-get install -y --no-install-recommends $missing; }
