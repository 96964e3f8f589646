"""Builds the library that counts BLAS and LAPACK calls (`make blas-census`).

Every BLAS or LAPACK routine numpy, scipy and what is built on them call is a symbol of the
OpenBLAS libraries their wheels carry (`scipy_cblas_dgemm64_`, `scipy_dgesdd_`, …), taken by the
extension modules as undefined symbols. A library loaded first (LD_PRELOAD) that defines the same
symbols takes those calls: each of its entry points adds one to a counter and jumps on to the real
routine, arguments untouched (looked up in the loaded OpenBLAS the first time). The census plugin
reads the counter (`blas_census_count()`) around each test; a process the test starts writes its own count, when it made
any call, to the file named by BLAS_CENSUS_CHILD as it exits.

Only x86-64 Linux: the entry points are a few instructions of assembly each.
Usage: python tests/blas_census/shim.py OUT.so
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

# The prefix of the routines of the OpenBLAS builds numpy and scipy bundle.
PREFIX = "scipy_"

C_SOURCE = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Hidden: the entry points reach them PC-relative. The plugin reads the count through the getter. */
__attribute__((visibility("hidden"))) uint64_t blas_census_calls = 0;
__attribute__((visibility("hidden"))) void *blas_census_real[%(count)d];

uint64_t blas_census_count(void) { return __atomic_load_n(&blas_census_calls, __ATOMIC_RELAXED); }
static const char *const names[%(count)d] = {%(names)s};

static int find_in(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    void **found = (void **)data;
    if (strstr(info->dlpi_name, "openblas") == NULL) return 0;
    void *handle = dlopen(info->dlpi_name, RTLD_NOLOAD | RTLD_LAZY);
    if (handle == NULL) return 0;
    void *symbol = dlsym(handle, names[(long)found[1]]);
    if (symbol != NULL) { found[0] = symbol; return 1; }
    return 0;
}

/* The real routine `index` names, from whichever loaded OpenBLAS defines it. */
__attribute__((visibility("hidden"))) void *blas_census_resolve(long index) {
    void *found[2] = {NULL, (void *)index};
    dl_iterate_phdr(find_in, found);
    if (found[0] == NULL) {
        fprintf(stderr, "blas census: no loaded OpenBLAS defines %%s\n", names[index]);
        abort();
    }
    blas_census_real[index] = found[0];
    return found[0];
}

__attribute__((destructor)) static void report_to_parent(void) {
    const char *out = getenv("BLAS_CENSUS_CHILD");
    if (out == NULL || blas_census_calls == 0) return;
    FILE *file = fopen(out, "a");
    if (file == NULL) return;
    fprintf(file, "%%d %%llu\n", (int)getpid(), (unsigned long long)blas_census_calls);
    fclose(file);
}
"""

# One entry point: count, then jump to the real routine; the first call finds it, every argument
# register saved around the lookup and the stack as the caller left it (its stack arguments too).
ENTRY = """
    .globl {name}
    .type {name}, @function
{name}:
    lock incq blas_census_calls(%rip)
    movq blas_census_real+{offset}(%rip), %rax
    testq %rax, %rax
    jz 1f
    jmp *%rax
1:
    pushq %rdi
    pushq %rsi
    pushq %rdx
    pushq %rcx
    pushq %r8
    pushq %r9
    subq $136, %rsp
    movdqu %xmm0, 0(%rsp)
    movdqu %xmm1, 16(%rsp)
    movdqu %xmm2, 32(%rsp)
    movdqu %xmm3, 48(%rsp)
    movdqu %xmm4, 64(%rsp)
    movdqu %xmm5, 80(%rsp)
    movdqu %xmm6, 96(%rsp)
    movdqu %xmm7, 112(%rsp)
    movq ${index}, %rdi
    call blas_census_resolve
    movq %rax, %r11
    movdqu 0(%rsp), %xmm0
    movdqu 16(%rsp), %xmm1
    movdqu 32(%rsp), %xmm2
    movdqu 48(%rsp), %xmm3
    movdqu 64(%rsp), %xmm4
    movdqu 80(%rsp), %xmm5
    movdqu 96(%rsp), %xmm6
    movdqu 112(%rsp), %xmm7
    addq $136, %rsp
    popq %r9
    popq %r8
    popq %rcx
    popq %rdx
    popq %rsi
    popq %rdi
    jmp *%r11
"""


def imported_routines(site_packages: Path) -> list[str]:
    """The OpenBLAS routines the installed extension modules take as undefined symbols."""
    found: set[str] = set()
    for module in site_packages.rglob("*.so"):
        listed = subprocess.run(["nm", "-D", "--undefined-only", str(module)], capture_output=True, text=True)
        for line in listed.stdout.splitlines():
            name = line.split()[-1]
            if name.startswith(PREFIX):
                found.add(name.split("@")[0])
    return sorted(found)


def build(out: Path) -> int:
    """Compile the counting library for the routines installed here; returns how many it counts."""
    names = imported_routines(Path(sysconfig.get_paths()["purelib"]))
    with tempfile.TemporaryDirectory() as folder:
        c_file, s_file = Path(folder) / "census.c", Path(folder) / "entries.S"
        c_file.write_text(C_SOURCE % {"count": len(names), "names": ", ".join(f'"{n}"' for n in names)})
        entries = "".join(ENTRY.format(name=n, offset=8 * i, index=i) for i, n in enumerate(names))
        s_file.write_text("    .text\n" + entries + '\n    .section .note.GNU-stack,"",@progbits\n')
        subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(out), str(c_file), str(s_file), "-ldl"], check=True)
    return len(names)


if __name__ == "__main__":
    print(f"{build(Path(sys.argv[1]))} routines counted by {sys.argv[1]}")
