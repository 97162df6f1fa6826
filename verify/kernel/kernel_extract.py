#!/usr/bin/python3
"""Extract the batched unlink_file_vma code and free_pgtables from a kernel tree, by name,
with libclang (Debian python3-clang), into one C++ translation unit that compiles against
the kernel shim (model/kshim/). The code is copied token for token; #line directives keep the
kernel's own file and line numbers, so that traces cite mm/vma.c:LINE. Only the definitions'
names are changed (NAME -> kbody_NAME: the shim's wrappers of the same name call them).

Second part: kernel/locking/rwsem.c, from __down_read, __down_read_trylock, __up_read,
__down_write, __down_write_trylock, __up_write, __down_read_killable and __down_write_killable down to every function, enum, struct and macro
of the file they use, into a second C++ translation unit that compiles against
model/kshim/rwsem.h. Each part is extracted when the tree has its files.

usage: kernel_extract.py TREE OUT_BATCH_CPP OUT_RWSEM_CPP
Exit 2 with one line on stderr naming the function and file when the tree does not serve.
"""
import os
import re
import sys

try:
    import clang.cindex as ci
except ImportError:
    sys.stderr.write("the libclang Python bindings are missing: apt-get install python3-clang\n")
    sys.exit(2)

# Where each piece lives, newest layout first: v6.12 moved the batch to mm/vma.{c,h}
# (v6.11: mm/mmap.c and mm/internal.h); free_pgtables has always been in mm/memory.c.
BATCH_FILES = ["mm/vma.c", "mm/mmap.c"]
STRUCT_FILES = ["mm/vma.h", "mm/internal.h"]
FREE_PGTABLES_FILES = ["mm/memory.c"]
CANDIDATE_FILES = sorted(set(BATCH_FILES + STRUCT_FILES + FREE_PGTABLES_FILES))

# The signatures the shim knows: (return type, parameter types), parameter names dropped.
BATCH = "struct unlink_vma_file_batch *"
VMA = "struct vm_area_struct *"
FUNCTIONS = [
    ("__remove_shared_vm_struct", BATCH_FILES, "void", [VMA, "struct address_space *"]),
    ("unlink_file_vma_batch_init", BATCH_FILES, "void", [BATCH]),
    ("unlink_file_vma_batch_process", BATCH_FILES, "void", [BATCH]),
    ("unlink_file_vma_batch_add", BATCH_FILES, "void", [BATCH, VMA]),
    ("unlink_file_vma_batch_final", BATCH_FILES, "void", [BATCH]),
    ("unlink_file_vma", BATCH_FILES, "void", [VMA]),
    ("free_pgtables", FREE_PGTABLES_FILES, "void",
     ["struct mmu_gather *", "struct ma_state *", VMA, "unsigned long", "unsigned long", "bool"]),
]
STRUCT = ("unlink_vma_file_batch", STRUCT_FILES, ["int count", "struct vm_area_struct *vmas[8]"])
# The page-table freeing free_pgtables calls, taken when mm/memory.c has all five (then the
# tree's code frees the tables, over model/kshim/pgtable.h; else the model's does).
UL = "unsigned long"
PGTABLE_FUNCTIONS = [
    ("free_pte_range", FREE_PGTABLES_FILES, "void", ["struct mmu_gather *", "pmd_t *", UL]),
    ("free_pmd_range", FREE_PGTABLES_FILES, "void", ["struct mmu_gather *", "pud_t *", UL, UL, UL, UL]),
    ("free_pud_range", FREE_PGTABLES_FILES, "void", ["struct mmu_gather *", "p4d_t *", UL, UL, UL, UL]),
    ("free_p4d_range", FREE_PGTABLES_FILES, "void", ["struct mmu_gather *", "pgd_t *", UL, UL, UL, UL]),
    ("free_pgd_range", FREE_PGTABLES_FILES, "void", ["struct mmu_gather *", UL, UL, UL, UL]),
]


class BadTree(Exception):
    pass


# A patch is code the checker compiles and runs. The tree's text may carry no directive that
# reads a file or changes what the compiler is told (#include, #pragma, #line, _Pragma), and
# after the shim's headers the names through which code reaches the system are poisoned:
# kernel code calls none of them, so a use of one is a compile error, not a run.
FORBIDDEN_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(include|include_next|import|embed|pragma|line|ident|sccs)\b|\b_Pragma\b", re.M)
POISON = ("#pragma GCC poison system popen pclose fork vfork clone execl execlp execle execv execvp execve "
          "execvpe fexecve posix_spawn posix_spawnp fopen freopen fdopen open openat creat socket connect "
          "bind unlink unlinkat rmdir rename renameat chmod fchmod chown kill ptrace syscall dlopen dlsym "
          "mmap mprotect asm __asm __asm__ getenv setenv putenv")


def forbid_directives(rel, what, line, text):
    m = FORBIDDEN_DIRECTIVE.search(text)
    if m:
        at = line + text.count("\n", 0, m.start())
        raise BadTree(f"{what} in {rel}:{at}: '{m.group(0).strip()}' inside the extracted code: the checker "
                      "compiles no directive that reads a file or talks to the compiler")


def norm(text):
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s*([\[\]])\s*", r"\1", text)
    return re.sub(r"\s*\*\s*", " *", text).replace("* ", "*")


def param_type(text):
    """A parameter without its name: "struct vm_area_struct *vma" -> "struct vm_area_struct *"."""
    return norm(re.sub(r"\b[A-Za-z_]\w*\s*$", "", norm(text)))


class Source:
    """One file of the tree, parsed as C with its #include lines blanked (no headers needed:
    only the definitions' extents and tokens are used; line numbers are kept)."""

    def __init__(self, tree, rel):
        self.rel = rel
        try:
            with open(f"{tree}/{rel}", encoding="utf-8", errors="replace") as f:
                self.text = f.read()
        except OSError:
            self.text = None
            return
        blanked = re.sub(r"^[ \t]*#[ \t]*include\b[^\n]*", "", self.text, flags=re.M)
        self.lines = self.text.split("\n")
        self.tu = ci.Index.create().parse(rel, args=["-x", "c", "-std=gnu11", "-ferror-limit=0"],
                                           unsaved_files=[(rel, blanked)], options=0)

    def definitions(self, name, kind):
        if self.text is None:
            return []
        return [c for c in self.tu.cursor.get_children()
                if c.spelling == name and c.kind == kind and c.is_definition()
                and c.location.file and c.location.file.name == self.rel]

    def extent_text(self, cursor):
        s, e = cursor.extent.start, cursor.extent.end
        lines = self.lines[s.line - 1:e.line]
        lines[-1] = lines[-1][:e.column - 1]
        lines[0] = lines[0][s.column - 1:]
        return s.line, s.column, "\n".join(lines)


def find(sources, name, files, kind, label=None):
    """The first definition of name in files (in that order), or BadTree naming it and them."""
    label = label or name
    present = [f for f in files if sources[f].text is not None]
    if not present:
        raise BadTree(f"{label}: none of {', '.join(files)} is in the tree")
    for f in present:
        found = sources[f].definitions(name, kind)
        if found:
            return sources[f], found[0]
    raise BadTree(f"{label}: not found in {' or '.join(present)}")


def check_function(src, cur, name, ret, params):
    got = [param_type(" ".join(t.spelling for t in p.get_tokens())) for p in cur.get_arguments()]
    got_ret = norm(cur.result_type.spelling)
    if got != params or got_ret != ret:
        raise BadTree(f"{name} in {src.rel}: signature changed to {got_ret} {name}({', '.join(got)}); "
                      f"the shim knows {ret} {name}({', '.join(params)})")


def renamed_definition(src, cur, name):
    """The definition's text with only its own name token renamed, and its prototype."""
    line, col, text = src.extent_text(cur)
    name_tok = cur.location  # the declarator's name
    lines = text.split("\n")
    i = name_tok.line - line
    c = name_tok.column - 1 - (col - 1 if i == 0 else 0)
    if lines[i][c:c + len(name)] != name:
        raise BadTree(f"{name} in {src.rel}: its name is not spelled at line {name_tok.line} (made by a macro?)")
    lines[i] = lines[i][:c] + "kbody_" + name + lines[i][c + len(name):]
    body = "\n".join(lines)
    proto = re.sub(r"\s+", " ", body[:body.index("{")]).strip() + ";"
    # A definition that starts mid-line keeps its column: pad so that the columns match too.
    return line, " " * (col - 1) + body, proto


# kernel/locking/rwsem.c: the entry points the scenarios call (rw_semaphore's __down_read ...),
# with the signatures the shim's operations call them with.
RWSEM_FILE = "kernel/locking/rwsem.c"
SEM = "struct rw_semaphore *"
RWSEM_ENTRIES = [("__down_read", "void"), ("__down_read_trylock", "int"), ("__up_read", "void"),
                 ("__down_write", "void"), ("__down_write_trylock", "int"), ("__up_write", "void")]
# The killable waits, taken when the tree has both (v4.x on): the rwsem_killable_* scenarios need them.
RWSEM_KILLABLE_ENTRIES = [("__down_read_killable", "int"), ("__down_write_killable", "int")]
# The configuration the file is compiled in, by default an x86-64 SMP kernel's (Debian's): no
# PREEMPT_RT (its rwbase code is another file); optimistic spinning on (kernel/Kconfig.locks:
# RWSEM_SPIN_ON_OWNER is def_bool y on SMP with atomic RMW), so its osq spin, unqueued steal and
# handoff spin are taken; CONFIG_DEBUG_RWSEMS off, as in distribution kernels (on, its
# DEBUG_RWSEMS_WARN_ON checks are the shim's checks). --config NAME=y|n changes one of these.
RWSEM_CONFIG_DEFAULTS = {"CONFIG_RWSEM_SPIN_ON_OWNER": True, "CONFIG_DEBUG_RWSEMS": False}
RWSEM_ANNOTATIONS = ["-D__sched=", "-Dnoinline=", "-D__always_inline=inline",
                     "-D__releases(x)=", "-D__init=", "-DEXPORT_SYMBOL(x)="]


def rwsem_parse_defines(config):
    return RWSEM_ANNOTATIONS + [f"-D{name}=1" for name, on in sorted(config.items()) if on]
# struct rwsem_waiter's fields that tasks read or write without the wait_lock, or with
# smp_load_acquire / smp_store_release: they become the shim's kshim_racy<T> (relaxed atomics).
RWSEM_RACY_FIELDS = ["task", "handoff_set"]


class Named:
    """What check_function reports a file by."""

    def __init__(self, rel):
        self.rel = rel


def rwsem_part(tree, config):
    """The rwsem translation unit's text, or None when the tree has no kernel/locking/rwsem.c."""
    try:
        with open(f"{tree}/{RWSEM_FILE}", encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    lines = text.split("\n")
    blanked = re.sub(r"^[ \t]*#[ \t]*include\b[^\n]*", "", text, flags=re.M)
    tu = ci.Index.create().parse(RWSEM_FILE, args=["-x", "c", "-std=gnu11", "-ferror-limit=0"] + rwsem_parse_defines(config),
                                 unsaved_files=[(RWSEM_FILE, blanked)],
                                 options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    K = ci.CursorKind
    decls = {}  # name -> cursor: function definitions, enums (and their constants), structs, macros
    for c in tu.cursor.get_children():
        if not (c.location.file and c.location.file.name == RWSEM_FILE):
            continue
        if c.kind == K.FUNCTION_DECL and c.is_definition():
            decls[c.spelling] = c
        elif c.kind == K.ENUM_DECL and c.is_definition():
            decls[c.spelling] = c
            for e in c.get_children():
                decls[e.spelling] = c
        elif c.kind == K.STRUCT_DECL and c.is_definition() and c.spelling:
            decls[c.spelling] = c
        elif c.kind == K.MACRO_DEFINITION:
            decls[c.spelling] = c

    def extent(c):
        s, e = c.extent.start, c.extent.end
        part = lines[s.line - 1:e.line]
        part[-1] = part[-1][:e.column - 1]
        part[0] = part[0][s.column - 1:]
        return s.line, s.column, "\n".join(part)

    for name, ret in RWSEM_ENTRIES:
        c = decls.get(name)
        if c is None or c.kind != K.FUNCTION_DECL:
            raise BadTree(f"{name}: not found in {RWSEM_FILE}")
        check_function(Named(RWSEM_FILE), c, name, ret, [SEM])
    entries = [n for n, _ in RWSEM_ENTRIES]
    killable = all(decls.get(n) is not None and decls[n].kind == K.FUNCTION_DECL for n, _ in RWSEM_KILLABLE_ENTRIES)
    if killable:
        for name, ret in RWSEM_KILLABLE_ENTRIES:
            check_function(Named(RWSEM_FILE), decls[name], name, ret, [SEM])
        entries += [n for n, _ in RWSEM_KILLABLE_ENTRIES]

    # Everything the entry points use, by name: the closure over the identifiers of each piece.
    wanted, todo = {}, list(entries)
    while todo:
        c = decls[todo.pop()]
        key = (c.extent.start.line, c.extent.start.column)
        if key in wanted:
            continue
        wanted[key] = c
        todo += [t.spelling for t in c.get_tokens()
                 if t.kind == ci.TokenKind.IDENTIFIER and t.spelling in decls and t.spelling != c.spelling]
    out = []
    for key in sorted(wanted):
        c = wanted[key]
        line, col, body = extent(c)
        if c.kind == K.MACRO_DEFINITION:
            body = "#define " + body
        elif c.kind == K.STRUCT_DECL and c.spelling == "rwsem_waiter":
            body = racy_fields(c, line, col, body)
            body = " " * (col - 1) + body + ";"
        elif c.kind in (K.STRUCT_DECL, K.ENUM_DECL):
            body = " " * (col - 1) + body + ";"
        else:
            body = " " * (col - 1) + body
        forbid_directives(RWSEM_FILE, c.spelling, line, body)
        out += [f'#line {line} "{RWSEM_FILE}"', body]
    functions = [wanted[k].spelling for k in sorted(wanted) if wanted[k].kind == K.FUNCTION_DECL]
    return out, killable, functions


NO_FRAME = []  # --no-frame: substrings of the names of functions compiled without frame hooks


def function_names(table, symbols):
    """The call-chain names of the tree's functions (model/call_chain.hpp): each symbol's address
    and its kernel name, registered before main. symbols: (C++ symbol, kernel name) pairs. A
    function without frame hooks (NO_FRAME) is left out: its address would keep a copy of it."""
    symbols = [(sym, name) for sym, name in symbols if not any(n in name for n in NO_FRAME)]
    rows = ", ".join(f'{{reinterpret_cast<const void*>(&{sym}), "{name}"}}' for sym, name in symbols)
    return [f"static const call_chain::FunctionName {table}[] = {{{rows}}};",
            f"static const bool {table}_registered = call_chain::name_functions({table}, {len(symbols)});"]


def racy_fields(cur, line, col, body):
    """struct rwsem_waiter with its RWSEM_RACY_FIELDS as kshim_racy<TYPE> NAME{"NAME"}."""
    fields = {f.spelling: f for f in cur.get_children() if f.kind == ci.CursorKind.FIELD_DECL}
    blines = body.split("\n")
    for name in RWSEM_RACY_FIELDS:
        f = fields.get(name)
        if f is None:
            raise BadTree(f"struct rwsem_waiter in {RWSEM_FILE}: no field {name}; the shim knows "
                          f"{{{', '.join(RWSEM_RACY_FIELDS)}}} as fields other tasks touch")
        decl = " ".join(t.spelling for t in f.get_tokens())
        ftype = param_type(decl)
        i = f.extent.start.line - line
        m = re.search(r"[^;{]*\b" + re.escape(name) + r"\s*;", blines[i])
        if not m or f.extent.start.line != f.extent.end.line:
            raise BadTree(f"struct rwsem_waiter in {RWSEM_FILE}: field {name} is not one declaration on one line")
        lead = re.match(r"\s*", m.group(0)).group(0)
        blines[i] = blines[i][:m.start()] + f'{lead}kshim_racy<{ftype}> {name}{{"{name}"}};' + blines[i][m.end():]
    return "\n".join(blines)


def write_rwsem(out, part):
    pieces, killable, functions = part
    o = ["// Generated by vmaverify kernel (verify/kernel/kernel_extract.py) from a kernel tree: the kernel's",
         "// own kernel/locking/rwsem.c, compiled against the shim in model/kshim/rwsem.h. Not part of the project.",
         '#include "model/kshim/rwsem.h"',
         POISON,
         "namespace krwsem {"]
    o += pieces
    o += ['#line 1 "model/kshim/rwsem (generated)"', "}  // namespace krwsem"]
    o += function_names("krwsem_function_names", [(f"krwsem::{f}", f) for f in functions])
    if killable:
        o.append("#define KSHIM_RWSEM_KILLABLE 1")
    o.append('#include "model/kshim/rwsem_register.h"')
    with open(out, "w") as f:
        f.write("\n".join(o) + "\n")


def main(argv):
    config, args = dict(RWSEM_CONFIG_DEFAULTS), argv[1:]
    while len(args) >= 2 and args[0] in ("--config", "--no-frame"):
        if args[0] == "--no-frame":
            NO_FRAME.append(args[1])
            args = args[2:]
            continue
        m = re.fullmatch(r"(CONFIG_[A-Z0-9_]+)=([yn])", args[1])
        if not m or m.group(1) not in config:
            sys.stderr.write(f"--config {args[1]}: not one of {', '.join(n + '=y|n' for n in sorted(config))}\n")
            return 2
        config[m.group(1)] = m.group(2) == "y"
        args = args[2:]
    if len(args) != 3:
        sys.stderr.write("usage: kernel_extract.py [--config CONFIG_NAME=y|n]... [--no-frame NAME]... TREE OUT_BATCH_CPP "
                         "OUT_RWSEM_CPP\n")
        return 2
    tree, out, rwsem_out = args
    has_batch = any(os.path.isfile(f"{tree}/{f}") for f in CANDIDATE_FILES)
    rwsem = rwsem_part(tree, config)
    if not has_batch and rwsem is None:
        raise BadTree(f"none of {', '.join(CANDIDATE_FILES + [RWSEM_FILE])} is in the tree")
    if rwsem is not None:
        write_rwsem(rwsem_out, rwsem)
    if not has_batch:
        return 0
    sources = {f: Source(tree, f) for f in CANDIDATE_FILES}
    sname, sfiles, sfields = STRUCT
    src, cur = find(sources, sname, sfiles, ci.CursorKind.STRUCT_DECL, "struct " + sname)
    fields = [norm(" ".join(t.spelling for t in c.get_tokens())) for c in cur.get_children()
              if c.kind == ci.CursorKind.FIELD_DECL]
    if fields != [norm(f) for f in sfields]:
        raise BadTree(f"struct {sname} in {src.rel}: fields changed to {{{'; '.join(fields)}}}; "
                      f"the shim knows {{{'; '.join(sfields)}}}")
    sline, scol, stext = src.extent_text(cur)
    forbid_directives(src.rel, "struct " + sname, sline, stext)
    # The shim's one addition to kernel text: a trailing overflow zone, so that a write past
    # vmas[] (a batch not flushed when full) lands where the shim can report it.
    stext = stext[:stext.rindex("}")] + " KSHIM_BATCH_OVERFLOW_ZONE " + stext[stext.rindex("}"):]
    parts = [(src.rel, sline, " " * (scol - 1) + stext + ";", None)]
    tree_pgtables = all(any(sources[f].definitions(name, ci.CursorKind.FUNCTION_DECL) for f in files)
                        for name, files, _, _ in PGTABLE_FUNCTIONS)
    for name, files, ret, params in FUNCTIONS + (PGTABLE_FUNCTIONS if tree_pgtables else []):
        fsrc, fcur = find(sources, name, files, ci.CursorKind.FUNCTION_DECL)
        check_function(fsrc, fcur, name, ret, params)
        line, body, proto = renamed_definition(fsrc, fcur, name)
        forbid_directives(fsrc.rel, name, line, body)
        parts.append((fsrc.rel, line, body, proto))

    o = ["// Generated by vmaverify kernel (verify/kernel/kernel_extract.py) from a kernel tree: the kernel's",
         "// own code, compiled against the shim in model/kshim/. Not part of the project.",
         '#include "model/kshim/kernel.h"']
    rel, line, text, _ = parts[0]
    o += [f'#line {line} "{rel}"', text]
    o.append('#line 1 "model/kshim/prototypes (generated)"')
    if tree_pgtables:
        o.append("#define KSHIM_TREE_PGTABLES 1")
    o += [p for _, _, _, p in parts[1:]]
    o.append('#include "model/kshim/call_sites.h"')
    o.append(POISON)
    for rel, line, text, _ in parts[1:]:
        o += [f'#line {line} "{rel}"', text]
    # What follows is the shim's, not the tree's: no line of it is counted as a line of the tree.
    o.append('#line 1 "model/kshim/register (generated)"')
    o.append('#include "model/kshim/register.h"')
    origin = ", ".join(sorted({p[0] for p in parts}))
    o.append(f'KSHIM_REGISTER("{origin}");')
    o += function_names("kernel_function_names",
                        [(f"kbody_{name}", name) for name, _, _, _ in FUNCTIONS + (PGTABLE_FUNCTIONS if tree_pgtables else [])])
    with open(out, "w") as f:
        f.write("\n".join(o) + "\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except BadTree as e:
        sys.stderr.write(f"{e}\n")
        sys.exit(2)
    except (OSError, ci.LibclangError) as e:  # the environment, not the tree: still one line
        sys.stderr.write(f"kernel_extract.py: {e}\n".replace("\n", " ").strip() + "\n")
        sys.exit(2)
