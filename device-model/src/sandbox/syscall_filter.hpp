// The model's run-time system call allow-list (seccomp, through libseccomp).
//
// Once its sockets, port and capture file are open the model only moves bytes between
// descriptors, maps the guest memory QEMU hands over, and reacts to timers and signals.
// confine() shrinks the kernel interface to that (operations.rst, "Confinement").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ornic::sandbox {

enum class Mode {
  off,     // no filter
  enforce, // a call outside the list is reported on stderr and the process dies of SIGSYS
  log,     // a call outside the list is allowed and logged by the kernel (audit, dmesg)
};

// Installs the allow-list on the calling thread with no_new_privs set; the model is single
// threaded, and threads started later inherit it. In enforce mode a SIGSYS handler names
// the offending call on stderr ("ornic-model: sandbox: forbidden system call NAME (NR)")
// before the process dies of SIGSYS. Returns the number of calls allowed (those this
// architecture has). Throws std::system_error when libseccomp or the kernel refuses.
size_t confine(Mode mode);

// The names of the calls the list allows, in the order they are added (for tests and docs).
std::vector<std::string> allowed_calls();

} // namespace ornic::sandbox
