#!/usr/bin/env bash
# An image with Debian's nginx of one suite, for `nginx -t` of configs written for that nginx
# (tests/test_nginx_versions.py: the goldens for nginx 1.26 go through trixie's). Built from the
# Molecule base image of the suite (molecule/common/build-base-image.sh), once.
#
#   scripts/ci/nginx-image.sh            # tpgen-nginx:trixie, if missing
#   scripts/ci/nginx-image.sh bookworm   # tpgen-nginx:bookworm
set -euo pipefail
cd "$(dirname "$0")/../.."
suite="${1:-trixie}"
image="tpgen-nginx:$suite"
base="tpgen-molecule-base:$suite"

# Debian's dynamic modules the configs load, as on the host (tests/nginx_tables.py: stream,
# image_filter, xslt): an image labelled with another list is built again.
modules="libnginx-mod-stream libnginx-mod-http-image-filter libnginx-mod-http-xslt-filter"
label='{{ index .Config.Labels "tpgen.modules" }}'
if [[ "$(docker image inspect -f "$label" "$image" 2>/dev/null)" == "$modules" ]]; then
    echo "nginx-image: $image exists, nothing to do"
    exit 0
fi
TPGEN_MOLECULE_BASE_IMAGE="$base" TPGEN_MOLECULE_SUITE="$suite" molecule/common/build-base-image.sh
start=$SECONDS
name="tpgen-nginx-build-$suite-$$"
trap 'docker rm -f "$name" >/dev/null 2>&1 || true' EXIT
# nginx and nothing it would start: policy-rc.d keeps the package's postinst from running it.
docker run --name "$name" --network host "$base" sh -euc '
    printf "#!/bin/sh\nexit 101\n" >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx '"$modules"' >/dev/null
    rm -rf /var/lib/apt/lists/* /usr/sbin/policy-rc.d
    nginx -v'
docker commit --change 'CMD ["nginx", "-V"]' --change "LABEL tpgen.modules=\"$modules\"" \
    "$name" "$image" >/dev/null
echo "nginx-image: built $image in $((SECONDS - start))s"
