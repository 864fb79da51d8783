#!/usr/bin/env bash
# Build a local stand-in for nginx.org's apt repository (https://nginx.org/packages/debian), run
# on the Molecule node by prepare.yml. nginx.org is unreachable from CI, so the role's official
# path is tested against this copy of its layout:
#
#   <root>/keys/nginx_signing.key                          the signing key (armored), as nginx.org
#   <root>/packages/debian/dists/<codename>/{Release,InRelease,Release.gpg}   Origin/Label: nginx
#   <root>/packages/debian/dists/<codename>/nginx/binary-amd64/Packages(.gz)
#   <root>/packages/debian/pool/nginx/n/nginx/nginx_<upstream>-1~<codename>_amd64.deb
#
# The package is shaped like nginx.org's (one `nginx` package that conflicts with Debian's split
# packages, user `nginx`, /etc/nginx/conf.d/default.conf on port 80, a postinst that starts the
# service) around the release's own nginx binary, so `nginx -V` is a real nginx's. Its version
# <upstream>-1~<codename> sorts BELOW the distro's (e.g. 1.22.1-9+deb12u2): apt installs it only
# because of the role's pin. Also writes two keys the role must refuse: other.key (a key that did
# not sign, not pinned) and both.key (the signing key plus that one).
#
#   make-repo.sh ROOT STATE     ROOT: served directory; STATE: GNUPGHOME and fingerprint files
set -euo pipefail
root=$1
state=$2
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
arch=$(dpkg --print-architecture)
export GNUPGHOME="$state/gnupg"
mkdir -p "$GNUPGHOME" "$root/keys"
chmod 0700 "$GNUPGHOME"

# --- keys: the repository's, and another one -------------------------------------------------
newkey() {  # newkey NAME -> NAME.fpr and $root/keys/NAME.key
    gpg --batch --passphrase '' --quick-gen-key "tpgen test $1 <$1@invalid>" ed25519 sign never
    gpg --batch --with-colons --list-keys "$1@invalid" |
        awk -F: '$1 == "fpr" { print $10; exit }' >"$state/$1.fpr"
    gpg --batch --armor --export "$(cat "$state/$1.fpr")" >"$root/keys/$1.key"
}
newkey signing
newkey other
cp "$root/keys/signing.key" "$root/keys/nginx_signing.key"
cat "$root/keys/signing.key" "$root/keys/other.key" >"$root/keys/both.key"

# --- the package: the release's nginx binary in nginx.org's packaging ------------------------
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download -q nginx nginx-common >/dev/null
dpkg-deb -x nginx-common_*.deb common
binary_deb=$(ls nginx_*.deb)
dpkg-deb -x "$binary_deb" bin
if [[ ! -x bin/usr/sbin/nginx ]]; then
    # Debian 12: `nginx` is a dependency package, the binary is in nginx-core.
    apt-get download -q nginx-core >/dev/null
    binary_deb=$(ls nginx-core_*.deb)
    dpkg-deb -x "$binary_deb" bin
fi
debian_version=$(dpkg-deb -f "$binary_deb" Version)
upstream=${debian_version%%-*}
version="$upstream-1~$codename"
# The binary's shared libraries, not Debian's nginx-* packages this one replaces.
depends=$(dpkg-deb -f "$binary_deb" Depends | tr ',' '\n' | sed 's/^ *//' |
    grep -Ev '^(nginx|libnginx)' | paste -sd, - | sed 's/,/, /g')

pkg=$work/pkg
mkdir -p "$pkg/DEBIAN" "$pkg/usr/sbin" "$pkg/etc/nginx/conf.d" "$pkg/lib/systemd/system" \
    "$pkg/var/log/nginx" "$pkg/var/lib/nginx" "$pkg/var/cache/nginx" "$pkg/usr/share/nginx/html"
cp bin/usr/sbin/nginx "$pkg/usr/sbin/nginx"
cp common/etc/nginx/mime.types "$pkg/etc/nginx/mime.types"
cat >"$pkg/etc/nginx/nginx.conf" <<'CONF'
user  nginx;
worker_processes  auto;
error_log  /var/log/nginx/error.log notice;
pid        /run/nginx.pid;
events {
    worker_connections  1024;
}
http {
    include       /etc/nginx/mime.types;
    default_type  application/octet-stream;
    access_log  /var/log/nginx/access.log;
    sendfile        on;
    keepalive_timeout  65;
    include /etc/nginx/conf.d/*.conf;
}
CONF
cat >"$pkg/etc/nginx/conf.d/default.conf" <<'CONF'
server {
    listen       80;
    server_name  localhost;
    location / {
        root   /usr/share/nginx/html;
        index  index.html index.htm;
    }
}
CONF
cat >"$pkg/lib/systemd/system/nginx.service" <<'UNIT'
[Unit]
Description=nginx - high performance web server
Documentation=https://nginx.org/en/docs/
After=network-online.target remote-fs.target nss-lookup.target
Wants=network-online.target

[Service]
Type=forking
PIDFile=/run/nginx.pid
ExecStart=/usr/sbin/nginx -c /etc/nginx/nginx.conf
ExecReload=/bin/sh -c "/bin/kill -s HUP $(/bin/cat /run/nginx.pid)"
ExecStop=/bin/sh -c "/bin/kill -s TERM $(/bin/cat /run/nginx.pid)"

[Install]
WantedBy=multi-user.target
UNIT
printf '/etc/nginx/nginx.conf\n/etc/nginx/mime.types\n/etc/nginx/conf.d/default.conf\n' \
    >"$pkg/DEBIAN/conffiles"
cat >"$pkg/DEBIAN/postinst" <<'SH'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
    getent passwd nginx >/dev/null ||
        useradd --system --user-group --no-create-home --home-dir /nonexistent \
            --shell /usr/sbin/nologin nginx
    # As nginx.org's postinst: start the service (policy-rc.d can forbid it).
    if command -v deb-systemd-invoke >/dev/null; then
        deb-systemd-invoke start nginx.service || true
    fi
fi
SH
chmod 0755 "$pkg/DEBIAN/postinst"
cat >"$pkg/DEBIAN/control" <<CTRL
Package: nginx
Version: $version
Architecture: $arch
Maintainer: NGINX Packaging <nginx-packaging@f5.com>
Depends: $depends
Conflicts: nginx-common, nginx-core, nginx-full, nginx-light, nginx-extras
Replaces: nginx-common, nginx-core, nginx-full, nginx-light, nginx-extras
Provides: httpd
Section: httpd
Priority: optional
Homepage: https://nginx.org
Description: high performance web server (tpgen test copy of nginx.org's package)
 Debian's $codename nginx binary packaged the way nginx.org packages nginx.
CTRL

repo=$root/packages/debian
dist=$repo/dists/$codename
mkdir -p "$repo/pool/nginx/n/nginx" "$dist/nginx/binary-$arch"
dpkg-deb --root-owner-group -Zxz -b "$pkg" "$repo/pool/nginx/n/nginx/nginx_${version}_$arch.deb" >/dev/null

# --- indexes and the signed Release, with nginx.org's fields ----------------------------------
cd "$repo"
apt-ftparchive packages pool/nginx >"$dist/nginx/binary-$arch/Packages"
gzip -9nkf "$dist/nginx/binary-$arch/Packages"
apt-ftparchive \
    -o APT::FTPArchive::Release::Origin=nginx \
    -o APT::FTPArchive::Release::Label=nginx \
    -o APT::FTPArchive::Release::Codename="$codename" \
    -o APT::FTPArchive::Release::Architectures="$arch" \
    -o APT::FTPArchive::Release::Components=nginx \
    release "dists/$codename" >"$work/Release"
mv "$work/Release" "$dist/Release"
signer=$(cat "$state/signing.fpr")
gpg --batch --yes --local-user "$signer" --clearsign -o "$dist/InRelease" "$dist/Release"
gpg --batch --yes --local-user "$signer" --armor --detach-sign -o "$dist/Release.gpg" "$dist/Release"
echo "$version" >"$state/version"
echo "make-repo: nginx $version for $codename in $root, signed by $signer"
