#!/usr/bin/env bash
# Runs cargo for the Maven build of streamfusion-bridge (the module in ../bridge).
#
#   cargo-maven.sh build|test PROFILE CARGO_TARGET_DIR MAVEN_TARGET_DIR
#
# A step is skipped when the Rust sources, the lock file, the profile and the toolchain are the
# same as at its last successful run (a stamp under MAVEN_TARGET_DIR), so an unchanged workspace
# costs no cargo run. `build` copies the cdylib to MAVEN_TARGET_DIR/classes/native/linux-x86_64/
# (a release one without its debug info, which goes to MAVEN_TARGET_DIR/libstreamfusion.so.debug)
# and its SHA-256 beside it.
set -euo pipefail

step=$1 profile=$2 cargo_target=$3 maven_target=$4
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

case "$profile" in
  debug) profile_flag=() ;;
  release) profile_flag=(--release) ;;
  *) echo "unknown cargo profile '$profile' (debug or release)" >&2; exit 2 ;;
esac

export CARGO_TARGET_DIR="$cargo_target"
lib="$cargo_target/$profile/libstreamfusion.so"
dest="$maven_target/classes/native/linux-x86_64"
stamp="$maven_target/cargo-$step-$profile.stamp"

fingerprint() {
  {
    rustc --version
    echo "$step $profile $cargo_target"
    find Cargo.toml Cargo.lock rustfmt.toml clippy.toml crates -type f -not -path '*/target/*' \
      | LC_ALL=C sort | xargs sha256sum
  } | sha256sum | cut -d' ' -f1
}

now=$(fingerprint)
# The build stamp also records the library's own hash: the cargo target directory may be shared
# with other clones, whose builds overwrite the same file.
lib_hash() { if [ -f "$lib" ]; then sha256sum "$lib" | cut -d' ' -f1; else echo none; fi; }
if [ "$step" = build ]; then now="$now $(lib_hash)"; fi

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$now" ]; then
  echo "cargo $step ($profile): Rust sources unchanged, skipped"
else
  case "$step" in
    build)
      cargo build --locked "${profile_flag[@]}" -p streamfusion-jni
      ;;
    test)
      cargo fmt --all -- --check
      cargo clippy --locked --workspace --all-targets "${profile_flag[@]}" -- -D warnings
      cargo test --locked --workspace "${profile_flag[@]}"
      ;;
    *) echo "unknown step '$step' (build or test)" >&2; exit 2 ;;
  esac
  mkdir -p "$maven_target"
  if [ "$step" = build ]; then now="${now% *} $(lib_hash)"; fi
  echo "$now" > "$stamp"
fi

# Beside the library, its SHA-256: it names the file the library is extracted to once per
# machine (NativeLibrary).
if [ "$step" = build ]; then
  mkdir -p "$dest"
  if [ "$profile" = release ]; then
    # The jar ships the library without its debug info (a sixth of the size, so a sixth of the
    # extraction per class loader); the debug info stays beside the jar for symbolizing a crash
    # (gdb finds it through the library's debuglink).
    objcopy --only-keep-debug "$lib" "$maven_target/libstreamfusion.so.debug"
    objcopy --strip-debug --add-gnu-debuglink="$maven_target/libstreamfusion.so.debug" \
      "$lib" "$dest/libstreamfusion.so"
    sha256sum "$dest/libstreamfusion.so" | cut -d' ' -f1 > "$dest/libstreamfusion.so.sha256"
  else
    cp -f "$lib" "$dest/libstreamfusion.so"
    # The same bytes as the build's: the stamp's last word is their hash already.
    echo "${now##* }" > "$dest/libstreamfusion.so.sha256"
  fi
fi
