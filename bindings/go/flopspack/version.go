package flopspack

import "github.com/flopspack/flopspack/bindings/go/internal/capi"

// HeaderVersion is the version of the C header this package was compiled
// against.
const HeaderVersion = capi.FLOPSPACK_VERSION_STRING

// Version is the version of the library actually loaded, e.g. "1.0.0".
func Version() string { return capi.Flopspack_version_string() }

// VersionNumber is major*10000 + minor*100 + patch of the loaded library.
func VersionNumber() int { return int(capi.Flopspack_version_number()) }

// DeriveSeed is the library's seed for stream (a shard, step, epoch...) of a
// parent seed: the same value in every language (flopspack_derive_seed).
func DeriveSeed(seed, stream uint64) uint64 { return capi.Flopspack_derive_seed(seed, stream) }
