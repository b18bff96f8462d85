#include "sandbox/syscall_filter.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <system_error>

#include <linux/if_tun.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

namespace ornic::sandbox {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// One rule: a call, allowed when its argument condition holds (none: always). A call may
// have several rules; any one of them allows it.
struct Rule {
  const char* name;
  std::optional<scmp_arg_cmp> condition = std::nullopt;
};

// Argument conditions, spelled out: libseccomp's SCMP_A* macros are C compound literals.
constexpr scmp_arg_cmp arg_is(unsigned arg, scmp_datum_t value) {
  return {arg, SCMP_CMP_EQ, value, 0};
}
constexpr scmp_arg_cmp arg_lacks(unsigned arg, scmp_datum_t bits) {
  return {arg, SCMP_CMP_MASKED_EQ, bits, 0};
}

// What the model does after setup, and why.
std::vector<Rule> model_rules() {
  const scmp_datum_t self = static_cast<scmp_datum_t>(::getpid());
  return {
      // Descriptors: the vfio-user socket, the port, the capture file, stderr, the state
      // file written on SIGUSR1 and at exit (a temporary file and a rename), a tap
      // re-opened after its interface came back, /proc/self/fd links naming eventfds.
      {"read"},
      {"readv"},
      {"pread64"},
      {"write"},
      {"writev"},
      {"pwrite64"},
      {"lseek"},
      {"close"},
      {"openat"},
      {"open"},
      {"fcntl"}, // F_GETFL/F_SETFL, and the seals of a shm: port's memfd
      {"fstat"},
      {"newfstatat"},
      {"stat"},
      {"lstat"},
      {"statx"},
      {"readlink"},
      {"readlinkat"},
      {"rename"},
      {"renameat"},
      {"renameat2"},
      {"unlink"}, // the socket files at exit
      {"unlinkat"},
      // Sockets: AF_UNIX only (a shm: port dials its peer again, if_nametoindex asks an
      // AF_UNIX socket); the udp: socket and every listening socket exist before confinement,
      // so bind and listen are not allowed.
      {"socket", arg_is(0, AF_UNIX)},
      {"connect"},
      {"accept4"},
      {"accept"},
      {"sendmsg"},
      {"recvmsg"},
      {"sendto"},
      {"recvfrom"},
      {"sendmmsg"},
      {"recvmmsg"},
      {"getsockopt"},
      {"setsockopt"},
      {"getsockname"},
      {"getpeername"},
      {"shutdown"},
      // ioctl: a tap: port attaching again and probing its interface, and terminal queries.
      {"ioctl", arg_is(1, TUNSETIFF)},
      {"ioctl", arg_is(1, TUNGETIFF)},
      {"ioctl", arg_is(1, SIOCGIFFLAGS)},
      {"ioctl", arg_is(1, SIOCGIFINDEX)},
      {"ioctl", arg_is(1, TCGETS)},
      {"ioctl", arg_is(1, TIOCGWINSZ)},
      {"ioctl", arg_is(1, FIONREAD)},
      {"ioctl", arg_is(1, FIONBIO)},
      // The event loop, eventfds (MSI-X triggers come from QEMU; a shm: port makes its own).
      {"epoll_wait"},
      {"epoll_pwait"},
      {"epoll_pwait2"},
      {"epoll_ctl"},
      {"poll"}, // has the old vfio-user client gone, when a new one connects
      {"ppoll"},
      {"eventfd2"},
      // Memory: guest RAM maps (MAP_SHARED of QEMU's memfds), the allocator, a shm: port's
      // ring (memfd_create, ftruncate); never executable.
      {"mmap", arg_lacks(2, PROT_EXEC)},
      {"mprotect", arg_lacks(2, PROT_EXEC)},
      {"munmap"},
      {"mremap"},
      {"madvise"},
      {"msync"}, // a FLUSH to persistent memory commits the guest's written pages
      {"brk"},
      {"memfd_create"},
      {"ftruncate"},
      // Time and waiting.
      {"clock_gettime"},
      {"clock_getres"},
      {"gettimeofday"},
      {"time"},
      {"clock_nanosleep"},
      {"nanosleep"},
      {"futex"},
      {"sched_yield"},
      {"restart_syscall"},
      // Signals: SIGTERM/SIGINT stop the loop, SIGBUS recovers a guarded copy from a
      // truncated memfd (its handler is installed on first use), abort() and raise() signal
      // this process only.
      {"rt_sigaction"},
      {"rt_sigprocmask"},
      {"rt_sigreturn"},
      {"tgkill", arg_is(0, self)},
      {"getpid"},
      {"gettid"},
      // The memory keys' random seed when the device is reset (std::random_device).
      {"getrandom"},
      // glibc names anonymous mappings when its tunable says so.
      {"prctl", arg_is(0, PR_SET_VMA)},
      {"exit"},
      {"exit_group"},
  };
}

// What the ASan/UBSan/LSan runtime adds in a sanitizer build: UBSan's vptr check probing
// whether memory is readable (a write to a pipe), reports (reading /proc/self/maps and the
// binary's debug information), and LeakSanitizer at exit, which
// clones a tracer sharing the address space that ptrace-stops this process while it scans
// the heap. The tracer may trace this process only.
std::vector<Rule> sanitizer_rules() {
  const scmp_datum_t self = static_cast<scmp_datum_t>(::getpid());
  constexpr scmp_datum_t kTracerClone = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_UNTRACED;
  return {
      {"clone", arg_is(0, kTracerClone)},
      {"ptrace", arg_is(1, self)},
      {"wait4"},
      {"getppid"},
      {"prctl", arg_is(0, PR_SET_PTRACER)},
      {"prctl", arg_is(0, PR_GET_DUMPABLE)},
      {"prctl", arg_is(0, PR_SET_DUMPABLE)},
      {"prctl", arg_is(0, PR_SET_PDEATHSIG)},
      {"pipe"},
      {"pipe2"},
      {"sigaltstack"},
      {"getdents64"},
      {"access"},
      {"faccessat"},
      {"faccessat2"},
      {"getrlimit"},
      {"prlimit64"},
      {"uname"},
      {"sched_getaffinity"},
  };
}

std::vector<Rule> all_rules() {
  std::vector<Rule> rules = model_rules();
  if (kSanitized)
    for (const Rule& rule : sanitizer_rules())
      rules.push_back(rule);
  return rules;
}

// Names for the SIGSYS report, resolved before confinement: libseccomp's lookup allocates.
constexpr int kNamedCalls = 512;
constexpr size_t kNameBytes = 32;
std::array<std::array<char, kNameBytes>, kNamedCalls> g_names{};

void resolve_names() {
  for (int nr = 0; nr < kNamedCalls; ++nr) {
    char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
    if (name != nullptr) {
      std::strncpy(g_names[nr].data(), name, kNameBytes - 1);
      std::free(name);
    }
  }
}

// Async-signal-safe: a fixed buffer, write(2), and the default SIGSYS to end the process.
extern "C" void on_forbidden_call(int, siginfo_t* info, void*) {
  char line[128];
  size_t n = 0;
  auto put = [&](const char* text) {
    while (*text != '\0' && n < sizeof(line) - 1)
      line[n++] = *text++;
  };
  const int nr = info->si_syscall;
  char digits[16];
  int d = 0;
  unsigned value = nr < 0 ? 0u : static_cast<unsigned>(nr);
  do {
    digits[d++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0 && d < static_cast<int>(sizeof(digits)));
  char number[16];
  for (int i = 0; i < d; ++i)
    number[i] = digits[d - 1 - i];
  number[d] = '\0';

  put("ornic-model: sandbox: forbidden system call ");
  put(nr >= 0 && nr < kNamedCalls && g_names[nr][0] != '\0' ? g_names[nr].data() : "?");
  put(" (");
  put(number);
  put("); exiting by SIGSYS (--sandbox off to debug)\n");
  [[maybe_unused]] ssize_t written = ::write(STDERR_FILENO, line, n);

  struct sigaction dfl{};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGSYS, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGSYS);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(SIGSYS);
  _exit(128 + SIGSYS); // not reached: SIGSYS kills
}

void install_reporter() {
  struct sigaction sa{};
  sa.sa_sigaction = on_forbidden_call;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSYS, &sa, nullptr) != 0)
    throw std::system_error(errno, std::generic_category(), "sandbox: sigaction(SIGSYS)");
}

struct FilterDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};

void check(int rc, const std::string& what) {
  if (rc < 0)
    throw std::system_error(-rc, std::generic_category(), "sandbox: " + what);
}

} // namespace

std::vector<std::string> allowed_calls() {
  std::vector<std::string> names;
  for (const Rule& rule : all_rules())
    if (std::find(names.begin(), names.end(), rule.name) == names.end())
      names.emplace_back(rule.name);
  return names;
}

size_t confine(Mode mode) {
  if (mode == Mode::off)
    return 0;
  const uint32_t fallback = mode == Mode::enforce ? SCMP_ACT_TRAP : SCMP_ACT_LOG;
  std::unique_ptr<void, FilterDeleter> ctx(seccomp_init(fallback));
  if (!ctx)
    throw std::system_error(ENOMEM, std::generic_category(), "sandbox: seccomp_init");
  // A call made through another ABI (i386 int 0x80, x32) never reaches the list.
  check(seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS),
        "bad-architecture action");
  check(seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_NNP, 1), "no_new_privs");

  std::vector<std::string> allowed;
  for (const Rule& rule : all_rules()) {
    const int nr = seccomp_syscall_resolve_name(rule.name);
    if (nr == __NR_SCMP_ERROR)
      throw std::system_error(EINVAL, std::generic_category(),
                              std::string("sandbox: unknown system call ") + rule.name);
    if (nr < 0)
      continue; // not a call of this architecture (open on arm64, say)
    check(seccomp_rule_add_array(ctx.get(), SCMP_ACT_ALLOW, nr, rule.condition ? 1 : 0,
                                 rule.condition ? &*rule.condition : nullptr),
          std::string("rule for ") + rule.name);
    if (std::find(allowed.begin(), allowed.end(), rule.name) == allowed.end())
      allowed.emplace_back(rule.name);
  }
  if (mode == Mode::enforce) {
    resolve_names();
    install_reporter();
  }
  check(seccomp_load(ctx.get()), "seccomp_load");
  return allowed.size();
}

} // namespace ornic::sandbox
