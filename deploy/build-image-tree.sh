#!/usr/bin/env bash
# Builds the runtime tree of the Scribe image: the workspace sources the services run, with
# production dependencies only. deploy/Dockerfile runs it, and test/deploy/image.test.ts runs the
# same script in a temporary folder, so what the test starts is what the image contains.
#
#   deploy/build-image-tree.sh <repository root> <destination>
#
# Extra pnpm install flags (e.g. --offline when the store already holds every package) go in
# SCRIBE_PNPM_INSTALL_FLAGS.
set -euo pipefail
src=$(cd "${1:?usage: build-image-tree.sh <repository root> <destination>}" && pwd)
dest=${2:?usage: build-image-tree.sh <repository root> <destination>}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

# The workspace manifests pnpm needs to honour the lockfile, and the sources of every package the CLI
# runs. Development-only packages (simulators, test and bench) are left out: the image must not need them.
cp "$src/package.json" "$src/pnpm-lock.yaml" "$src/pnpm-workspace.yaml" "$src/.npmrc" "$src/tsconfig.json" "$dest/"
cp -R "$src/migrations" "$dest/migrations"
# pnpm applies patches/ (patchedDependencies in pnpm-workspace.yaml) while installing: without them the lockfile does not match.
cp -R "$src/patches" "$dest/patches"
for dir in "$src"/packages/* "$src"/services/*; do
  name=$(basename "$dir")
  group=$(basename "$(dirname "$dir")")
  [[ "$group/$name" == packages/simulators ]] && continue
  mkdir -p "$dest/$group/$name"
  tar -C "$dir" --exclude=./node_modules --exclude=./test --exclude=./dist -cf - . | tar -C "$dest/$group/$name" -xf -
done

cd "$dest"
# The web app the gateway serves at / is built here (Vite, a development dependency), then every
# node_modules is dropped so that only production dependencies remain.
# shellcheck disable=SC2086 # the extra flags are meant to split into words
pnpm install --frozen-lockfile --filter "@scribe/web..." --config.confirmModulesPurge=false ${SCRIBE_PNPM_INSTALL_FLAGS:-}
pnpm --filter @scribe/web build
rm -rf node_modules packages/*/node_modules services/*/node_modules
# shellcheck disable=SC2086
pnpm install --frozen-lockfile --prod --filter "@scribe/cli..." --config.confirmModulesPurge=false ${SCRIBE_PNPM_INSTALL_FLAGS:-}
