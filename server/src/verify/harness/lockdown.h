// The harness's system-call filter, installed once the GPU context exists and before the first
// call into the candidate: whatever the object checks missed, the candidate's process can then
// start no program, no process and no network connection (killed: the verdict names the filter),
// and cannot open, create, rename or remove files for writing (EPERM: the CUDA driver keeps its
// already-open device files). Threads stay allowed: the CUDA runtime starts its own.
#include <cerrno>
#include <cstddef>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define CO_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CO_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define CO_NR_IS(nr, action) \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, (action))

// Returns 0 when the filter is in place, else the errno of the failure (or ENOSYS: no filter for
// this architecture).
static int co_lock_down() {
#ifndef CO_AUDIT_ARCH
    return ENOSYS;
#else
    const unsigned kill = SECCOMP_RET_KILL_PROCESS;
    const unsigned eperm = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
    const unsigned enosys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);
    const unsigned writes = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CO_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, kill),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
        // The x32 ABI reaches the same calls under other numbers.
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, kill),
        CO_NR_IS(__NR_fork, kill),
        CO_NR_IS(__NR_vfork, kill),
        CO_NR_IS(__NR_open, eperm),
        CO_NR_IS(__NR_creat, eperm),
        CO_NR_IS(__NR_rename, eperm),
        CO_NR_IS(__NR_unlink, eperm),
        CO_NR_IS(__NR_rmdir, eperm),
        CO_NR_IS(__NR_mkdir, eperm),
        CO_NR_IS(__NR_link, eperm),
        CO_NR_IS(__NR_symlink, eperm),
        CO_NR_IS(__NR_chmod, eperm),
        CO_NR_IS(__NR_truncate, eperm),
#endif
        CO_NR_IS(__NR_execve, kill),
        CO_NR_IS(__NR_execveat, kill),
        CO_NR_IS(__NR_socket, kill),
        CO_NR_IS(__NR_socketpair, kill),
        CO_NR_IS(__NR_connect, kill),
        CO_NR_IS(__NR_bind, kill),
        CO_NR_IS(__NR_ptrace, kill),
        CO_NR_IS(__NR_process_vm_writev, kill),
        CO_NR_IS(__NR_process_vm_readv, kill),
        // clone3 passes its flags in memory a filter cannot read: glibc falls back to clone.
        CO_NR_IS(__NR_clone3, enosys),
        CO_NR_IS(__NR_openat2, enosys),
        CO_NR_IS(__NR_renameat, eperm),
        CO_NR_IS(__NR_renameat2, eperm),
        CO_NR_IS(__NR_unlinkat, eperm),
        CO_NR_IS(__NR_mkdirat, eperm),
        CO_NR_IS(__NR_linkat, eperm),
        CO_NR_IS(__NR_symlinkat, eperm),
        CO_NR_IS(__NR_fchmodat, eperm),
        CO_NR_IS(__NR_mknodat, eperm),
        // clone: a thread (CLONE_THREAD) is allowed, a process is not.
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, kill),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        // openat: only for reading.
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, writes, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, eperm),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof(f) / sizeof(f[0])), f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) return errno;
    return 0;
#endif
}
