// Copies to or from memory backed by a file the vfio-user client controls. If the client
// shrinks the file under our mapping, touching the lost pages raises SIGBUS; here that
// becomes a false return instead of a dead model.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ornic {

// memcpy that returns false if a page of src or dst is gone (SIGBUS). On false, dst may
// have been partly written. Installs a process-wide SIGBUS handler on first use; faults
// outside a guarded copy still end the process as before.
bool guarded_copy(void* dst, const void* src, size_t size);
// One aligned 64-bit store of `value` to `dst` (8-byte aligned), indivisible for any
// concurrent reader; false if the page is gone (SIGBUS).
bool guarded_store64(void* dst, uint64_t value);

} // namespace ornic
