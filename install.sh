#!/usr/bin/env bash
# Installs fieldhub as a systemd service (docs/install.md):
#
#   sudo ./install.sh [EXECUTABLE]          install, or upgrade in place
#   sudo ./install.sh --uninstall [--purge] remove it (--purge: data and config too)
#
# EXECUTABLE defaults to fieldhub-linux-<this machine's architecture> next to this
# script (or in dist/ beside it). What it sets up:
#
#   /usr/local/bin/fieldhub              the executable
#   user and group fieldhub              system user, no login shell, in group dialout
#   /var/lib/fieldhub                    data directory (fieldhub:fieldhub, 0750)
#   /etc/fieldhub/fieldhub.yaml          config (root:fieldhub, 0640); from
#                                        fieldhub.example.yaml only when there is none
#   /etc/systemd/system/fieldhub.service hardened unit, enabled and (re)started
#
# The config (existing or example) is checked with the executable being installed
# before anything changes: a config that fails `fieldhub config check` stops the
# install with its problems listed, so no unit is started (or restarted) on it.
# Running it again with the same executable changes nothing; a new executable is an
# upgrade that keeps the data and the config and restarts the service.
#
# --root DIR puts every file under DIR instead of / and only prints what it would do
# as root (useradd, chown, systemctl): for tests and for packaging.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: install.sh [options] [EXECUTABLE]

  EXECUTABLE    the fieldhub executable to install (default: fieldhub-linux-<arch>
                next to this script or in dist/ beside it)
  --uninstall   stop and remove the service, the executable and the user;
                keep /var/lib/fieldhub and /etc/fieldhub
  --purge       with --uninstall: remove /var/lib/fieldhub and /etc/fieldhub too
  --no-start    install without enabling or (re)starting the service
  --root DIR    install under DIR (for tests and packaging): no useradd, chown or
                systemctl; prints what it would run instead
  -h, --help    this help
EOF
}

say() { printf 'fieldhub install: %s\n' "$*"; }
warn() { printf 'fieldhub install: warning: %s\n' "$*" >&2; }
die() {
  printf 'fieldhub install: error: %s\n' "$*" >&2
  exit 1
}

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
root=""
dry=no
action=install
purge=no
start=yes
exe=""
while [ $# -gt 0 ]; do
  case "$1" in
  --root) [ $# -ge 2 ] || { usage >&2; exit 2; }; root=$2; dry=yes; shift 2 ;;
  --root=*) root=${1#--root=}; dry=yes; shift ;;
  --uninstall) action=uninstall; shift ;;
  --purge) purge=yes; shift ;;
  --no-start) start=no; shift ;;
  -h | --help) usage; exit 0 ;;
  -*) printf 'fieldhub install: unknown option "%s"\n\n' "$1" >&2; usage >&2; exit 2 ;;
  *) [ -z "$exe" ] || { usage >&2; exit 2; }; exe=$1; shift ;;
  esac
done
[ "$purge" = no ] || [ "$action" = uninstall ] || die "--purge goes with --uninstall"
if [ "$dry" = yes ]; then
  [ -n "$root" ] || die "--root needs a directory"
  mkdir -p "$root"
  root=$(cd "$root" && pwd)
  [ "$root" != / ] || root=""
fi

# Paths on the target system (in the unit file) and where they are written here.
BIN=/usr/local/bin/fieldhub
CONF_DIR=/etc/fieldhub
CONF=$CONF_DIR/fieldhub.yaml
DATA=/var/lib/fieldhub
UNIT=/etc/systemd/system/fieldhub.service
USER_NAME=fieldhub

# A command that changes the system: run it (shown), or with --root only show it.
run() {
  if [ "$dry" = yes ]; then
    printf '  would run: %s\n' "$*"
  else
    printf '  + %s\n' "$*"
    "$@"
  fi
}

# With --root: a command that would run as root when CONDITION holds.
plan() {
  local condition=$1
  shift
  printf '  would run (%s): %s\n' "$condition" "$*"
}

if [ "$dry" = no ]; then
  [ "$(id -u)" -eq 0 ] || die "run it as root (sudo $0 $*), or with --root DIR to try it out"
  command -v systemctl >/dev/null 2>&1 || die "systemctl not found: install.sh sets up a systemd service"
fi

nologin_shell() {
  local shell
  for shell in /usr/sbin/nologin /sbin/nologin; do
    [ -x "$shell" ] && { echo "$shell"; return; }
  done
  echo /bin/false
}

unit_active() { [ "$dry" = no ] && systemctl is-active --quiet fieldhub.service; }

# ---------------------------------------------------------------------- uninstall
if [ "$action" = uninstall ]; then
  say "uninstalling fieldhub${root:+ under $root}"
  if [ -e "$root$UNIT" ]; then
    if [ "$dry" = yes ] || systemctl list-unit-files fieldhub.service >/dev/null 2>&1; then
      run systemctl disable --now fieldhub.service
    fi
    rm -f "$root$UNIT"
    say "removed $root$UNIT"
    run systemctl daemon-reload
  else
    say "no unit $root$UNIT (already removed)"
  fi
  if [ -e "$root$BIN" ]; then
    rm -f "$root$BIN"
    say "removed $root$BIN"
  else
    say "no executable $root$BIN (already removed)"
  fi
  if [ "$dry" = yes ]; then
    run userdel "$USER_NAME"
  elif getent passwd "$USER_NAME" >/dev/null; then
    run userdel "$USER_NAME"
    if getent group "$USER_NAME" >/dev/null; then run groupdel "$USER_NAME"; fi
  else
    say "no user $USER_NAME (already removed)"
  fi
  if [ "$purge" = yes ]; then
    rm -rf "$root$DATA" "$root$CONF_DIR" "$root$UNIT.d"
    say "purged $root$DATA, $root$CONF_DIR and $root$UNIT.d"
  else
    say "kept the data in $root$DATA and the config in $root$CONF_DIR (--uninstall --purge removes them)"
  fi
  exit 0
fi

# ------------------------------------------------------------------------ install
case "$(uname -m)" in
x86_64 | amd64) arch=x64 elf=x86-64 ;;
aarch64 | arm64) arch=arm64 elf=aarch64 ;;
*) die "fieldhub is built for x86-64 and arm64, not $(uname -m)" ;;
esac

# ELF e_machine (bytes 18-19, little-endian): 62 x86-64, 183 aarch64.
elf_machine() {
  local magic machine
  magic=$(od -An -tx1 -N4 "$1" | tr -d ' \n')
  [ "$magic" = 7f454c46 ] || { echo "not an executable"; return; }
  machine=$(od -An -tu1 -j18 -N2 "$1" | awk '{ print $1 + 256 * $2 }')
  case "$machine" in
  62) echo x86-64 ;;
  183) echo aarch64 ;;
  *) echo "ELF machine $machine" ;;
  esac
}

if [ -z "$exe" ]; then
  names=("fieldhub-linux-$arch")
  # Bun's x64 runtime needs AVX2; the baseline build runs on CPUs without it.
  if [ "$arch" = x64 ] && ! grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
    names=(fieldhub-linux-x64-baseline fieldhub-linux-x64)
  fi
  for name in "${names[@]}"; do
    for dir in "$here" "$here/dist"; do
      if [ -z "$exe" ] && [ -f "$dir/$name" ]; then exe="$dir/$name"; fi
    done
  done
  [ -n "$exe" ] || die "no ${names[0]} next to $0 or in $here/dist: build it (scripts/build) or give its path"
  if [ "$arch" = x64 ] && [ "${exe##*/}" = fieldhub-linux-x64 ] && [ "${names[0]}" = fieldhub-linux-x64-baseline ]; then
    warn "this CPU has no AVX2; fieldhub-linux-x64 may stop with 'Illegal instruction' (scripts/build --target linux-x64-baseline)"
  fi
fi
[ -f "$exe" ] || die "$exe: no such file"
exe=$(readlink -f "$exe")
exe_arch=$(elf_machine "$exe")
[ "$exe_arch" != "not an executable" ] || die "$exe is not an executable (not ELF)"
runnable=yes
if [ "$exe_arch" != "$elf" ]; then
  [ "$dry" = yes ] || die "$exe is $exe_arch, but this machine is $elf"
  warn "$exe is $exe_arch, this machine is $elf: it is installed under $root but not run or checked"
  runnable=no
fi

new_version=unknown
if [ "$runnable" = yes ]; then
  if ! new_version=$("$exe" version 2>&1); then
    hint=""
    if [ "$arch" = x64 ] && ! grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
      hint=" (this CPU has no AVX2: use fieldhub-linux-x64-baseline, from scripts/build --target linux-x64-baseline)"
    fi
    die "$exe does not run here: $new_version$hint"
  fi
fi

# The config to check with the new executable before anything changes.
example="$here/fieldhub.example.yaml"
if [ -e "$root$CONF" ]; then
  config_source=existing
  check_file="$root$CONF"
else
  config_source=example
  [ -f "$example" ] || die "no config at $root$CONF and no $example to install as one"
  check_file=$example
fi
if [ "$runnable" = yes ]; then
  if ! problems=$("$exe" config check "$check_file" 2>&1); then
    printf '%s\n' "$problems" >&2
    if [ "$config_source" = existing ]; then
      die "$check_file fails \`fieldhub config check\` (problems above): nothing was changed and the service was not (re)started. Fix the config, then run install.sh again."
    fi
    die "the example config $example fails \`fieldhub config check\` (problems above): nothing was changed"
  fi
fi

installed_version=""
if [ -x "$root$BIN" ] && [ "$runnable" = yes ]; then
  installed_version=$("$root$BIN" version 2>/dev/null || echo "an unknown version")
fi
if [ -z "$installed_version" ]; then
  say "installing $new_version from $exe${root:+ under $root}"
elif cmp -s "$exe" "$root$BIN"; then
  say "$installed_version is already installed${root:+ under $root}; checking the rest"
else
  say "upgrading $installed_version to $new_version${root:+ under $root}"
fi

changed=no
# Writes SRC to DEST (mode MODE) only when its content differs; sets changed=yes then.
put_file() {
  local src=$1 dest=$2 mode=$3
  if [ -f "$dest" ] && cmp -s "$src" "$dest"; then
    if [ "$(stat -c %a "$dest")" != "$mode" ]; then chmod "$mode" "$dest"; fi
    say "unchanged $dest"
    return
  fi
  local verb=installed
  [ -e "$dest" ] && verb=updated
  mkdir -p "$(dirname "$dest")"
  # A new file renamed over the old one: a running fieldhub keeps its own copy.
  cp "$src" "$dest.new.$$"
  chmod "$mode" "$dest.new.$$"
  mv -f "$dest.new.$$" "$dest"
  say "$verb $dest"
  changed=yes
}

# Creates DIR with MODE (fixing the mode if it differs).
put_dir() {
  local dir=$1 mode=$2
  if [ -d "$dir" ]; then
    if [ "$(stat -c %a "$dir")" != "$mode" ]; then
      chmod "$mode" "$dir"
      say "set mode $mode on $dir"
    fi
  else
    mkdir -p "$dir"
    chmod "$mode" "$dir"
    say "created $dir ($mode)"
  fi
}

# Sets owner:group on PATH when it differs (with --root: says it would).
own() {
  local owner=$1 path=$2
  if [ "$dry" = yes ]; then
    run chown "$owner" "${path#"$root"}"
  elif [ "$(stat -c %U:%G "$path")" != "$owner" ]; then
    run chown "$owner" "$path"
  fi
}

# 1. The user: system account, no login shell, in dialout for the serial ports.
shell=$(nologin_shell)
if [ "$dry" = yes ]; then
  say "user $USER_NAME: a system user, no login shell, in group dialout"
  plan "if there is no dialout group" groupadd --system dialout
  plan "if there is no user $USER_NAME" useradd --system --user-group --home-dir "$DATA" --no-create-home --shell "$shell" --groups dialout "$USER_NAME"
  plan "if $USER_NAME is not in dialout" usermod --append --groups dialout "$USER_NAME"
else
  if ! getent group dialout >/dev/null; then
    warn "no dialout group here: creating one; give the serial devices to it (udev) if they belong to another group"
    run groupadd --system dialout
  fi
  if ! getent passwd "$USER_NAME" >/dev/null; then
    run useradd --system --user-group --home-dir "$DATA" --no-create-home --shell "$shell" --groups dialout "$USER_NAME"
  elif ! id -nG "$USER_NAME" | tr ' ' '\n' | grep -qx dialout; then
    run usermod --append --groups dialout "$USER_NAME"
  else
    say "user $USER_NAME exists and is in dialout"
  fi
fi

# 2. The data directory: the service's only writable place.
put_dir "$root$DATA" 750
own "$USER_NAME:$USER_NAME" "$root$DATA"
if [ "$dry" = no ] && [ -n "$(find "$root$DATA" -mindepth 1 \! -user "$USER_NAME" -print -quit)" ]; then
  # Data kept from an uninstall belongs to the old user's id.
  run chown -R "$USER_NAME:$USER_NAME" "$DATA"
fi

# 3. The executable.
mkdir -p "$root$(dirname "$BIN")"
put_file "$exe" "$root$BIN" 755
binary_changed=$changed

# 4. The config: the example only when there is none; an existing one is kept as is.
put_dir "$root$CONF_DIR" 750
own "root:$USER_NAME" "$root$CONF_DIR"
if [ "$config_source" = example ]; then
  put_file "$example" "$root$CONF" 640
  say "installed the example config: edit $CONF for your equipment (docs/config.md)"
else
  say "kept the existing config $root$CONF"
  if [ "$(stat -c %A "$root$CONF" | cut -c5)" != r ]; then
    chmod g+r "$root$CONF"
    say "made $root$CONF readable by group $USER_NAME"
  fi
fi
own "root:$USER_NAME" "$root$CONF"

# 5. The unit.
unit_file=$(mktemp)
trap 'rm -f "$unit_file"' EXIT
cat >"$unit_file" <<EOF
# Installed by fieldhub's install.sh; rewritten on upgrade. Local changes go in a
# drop-in (systemctl edit fieldhub), which an upgrade keeps.
[Unit]
Description=fieldhub Modbus data appliance
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=$USER_NAME
Group=$USER_NAME
SupplementaryGroups=dialout
ExecStart=$BIN serve --config $CONF --data $DATA
# systemctl reload: serve re-reads the config and applies it without a restart.
ExecReload=/bin/kill -HUP \$MAINPID
# JavaScriptCore sizes its heap's growth by the machine's RAM; told 64 MB it
# collects before the heap doubles (docs/benchmarks.md, "Footprint").
Environment=BUN_JSC_forceRAMSize=67108864
WorkingDirectory=$DATA
Restart=on-failure
RestartSec=5
KillSignal=SIGTERM
TimeoutStopSec=30
LimitNOFILE=65536
UMask=0027

# Hardening: read-only system, writable data directory, serial ports only.
NoNewPrivileges=yes
ProtectSystem=strict
ReadWritePaths=$DATA
ProtectHome=yes
PrivateTmp=yes
DevicePolicy=closed
DeviceAllow=char-ttyS rw
DeviceAllow=char-ttyUSB rw
DeviceAllow=char-ttyACM rw
CapabilityBoundingSet=
AmbientCapabilities=
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
RemoveIPC=yes
PrivateMounts=yes
ProtectProc=invisible
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK
SystemCallArchitectures=native

[Install]
WantedBy=multi-user.target
EOF
changed=no
put_file "$unit_file" "$root$UNIT" 644
unit_changed=$changed

# 6. systemd: reload, enable, and (re)start when something changed or it is not running.
if [ "$start" = no ]; then
  [ "$unit_changed" = no ] || run systemctl daemon-reload
  say "not enabling or starting it (--no-start): systemctl enable --now fieldhub"
elif [ "$dry" = yes ]; then
  [ "$unit_changed" = no ] || run systemctl daemon-reload
  plan "if it is not enabled" systemctl enable fieldhub.service
  if [ "$binary_changed" = yes ] || [ "$unit_changed" = yes ]; then
    run systemctl restart fieldhub.service
  else
    plan "if it is not running" systemctl restart fieldhub.service
  fi
else
  [ "$unit_changed" = no ] || run systemctl daemon-reload
  systemctl is-enabled --quiet fieldhub.service 2>/dev/null || run systemctl enable fieldhub.service
  if [ "$binary_changed" = yes ] || [ "$unit_changed" = yes ] || ! unit_active; then
    run systemctl restart fieldhub.service
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      sleep 0.5
      systemctl is-active --quiet fieldhub.service || break
    done
    if ! systemctl is-active --quiet fieldhub.service; then
      journalctl --unit fieldhub.service --lines 30 --no-pager >&2 || true
      die "fieldhub.service did not stay up (its log is above): systemctl status fieldhub"
    fi
    say "fieldhub.service is running"
  else
    say "fieldhub.service is running and nothing changed: not restarted"
  fi
fi

say "done. Config $CONF, data $DATA, logs: journalctl -u fieldhub -f"
