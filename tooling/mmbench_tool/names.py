"""Benchmark and row names, read from the repository's own files.

The module's tables (a struct mmbench_bench array per family in
lib/test_mmbench.c, in the order their rows run) name the benchmarks; a
benchmark with a list parameter has a row per value,
<benchmark>_<prefix><value> (kmalloc_64, alloc_pages_order3), the others
one row of their own name.  The kselftest's ceilings file names the
benchmarks whose rows are held to a ceiling.  Reading them here means the
front end never drifts from the module.
"""
import difflib
import re

from . import knobs
from .common import REPO, Failure

MODULE_SOURCE = REPO / "lib" / "test_mmbench.c"
# The module with its test-only knobs (tooling/kernel/patches/
# test_mmbench-knobs.patch), as ./mmbench test and a run given a knob
# build it: the parameters a run may give, and what the front end checks
# them against when a knob is meant (options.check_options()).
CHECKED_SOURCE = knobs.SOURCE
# module_param*() and MMBENCH_PARAM_UINT(), the parameters' name first.
_PARAM = (r"(?:module_param(?:_cb|_named|_array_named)?|"
          r"MMBENCH_PARAM_UINT)\((\w+),")
CEILINGS = REPO / "tools/testing/selftests/mm/mmbench/ceilings"


def _entries(source):
    """(name, entry text) of each benchmark in the module's tables (struct
    mmbench_bench arrays), and the module's text."""
    text = source.read_text()
    tables = re.findall(r"^static const struct mmbench_bench \w+\[\] = "
                        r"\{(.*?)\n\};", text, re.S | re.M)
    if not tables:
        raise Failure(f"{source}: no struct mmbench_bench table")
    return [(name.group(1), entry)
            for table in tables
            for entry in re.split(r"\}\s*,\s*(?:/\*.*?\*/\s*)*\{", table)
            for name in [re.search(r'\.name = "([^"]+)"', entry)]
            if name], text


def benchmarks(source=MODULE_SOURCE):
    """{name: suffix} in table order; suffix None without a list parameter."""
    entries, text = _entries(source)
    found = {}
    for name, entry in entries:
        lst = re.search(r"\.list = &(\w+)", entry)
        suffix = None
        if lst:
            decl = re.search(rf"struct mmbench_list {lst.group(1)} = \{{"
                             r"([^;]*?)\n\};", text)
            if not decl:
                raise Failure(f"{source}: no list {lst.group(1)}")
            prefix = re.search(r'\.prefix = "([^"]*)"', decl.group(1))
            suffix = prefix.group(1) if prefix else ""
        found[name] = suffix
    if not found:
        raise Failure(f"{source}: no names in its struct mmbench_bench tables")
    return found


def list_params(source=MODULE_SOURCE):
    """{benchmark: the list parameter it has a row per value of}."""
    entries, text = _entries(source)
    found = {}
    for name, entry in entries:
        lst = re.search(r"\.list = &(\w+)", entry)
        decl = lst and re.search(rf"struct mmbench_list {lst.group(1)} = "
                                 r'\{[^;]*?\.param = "(\w+)"', text)
        if decl:
            found[name] = decl.group(1)
    return found


def parameters(source=CHECKED_SOURCE):
    """Names of the module's parameters (module_param*() and
    MMBENCH_PARAM_UINT() in the source; not the macro's own "name");
    by default with the knobs, MODULE_SOURCE's without them."""
    return set(re.findall(rf"^{_PARAM}", source.read_text(), re.M)) - \
        {"name"}


def knob_parameters(patch=knobs.PATCH):
    """The parameters the knobs patch adds to the module: read from the
    lines it adds, so that they are known even where it no longer applies
    (a plain run does not need it to)."""
    return set(re.findall(rf"^\+{_PARAM}", patch.read_text(), re.M)) - \
        {"name"}


def knobs_given(params):
    """The knobs among @params (NAME=VALUE strings, or {NAME: VALUE}):
    with any, the module is built with the knobs patch."""
    got = set(params) if isinstance(params, dict) else \
        {p.split("=", 1)[0] for p in params}
    return got & knob_parameters()


def check_parameter_names(params, source=CHECKED_SOURCE):
    """Refuse a parameter the module does not have, naming it."""
    known = parameters(source)
    test_only = knob_parameters()
    for name in params:
        if name not in known:
            raise Failure(f"--param {name}={params[name]}: the module has "
                          f"no parameter {name!r}; {_hint(name, known)}"
                          f"it has: {', '.join(sorted(known - test_only))}"
                          + (f"; test only (with {knobs.PATCH.name}): "
                             f"{', '.join(sorted(test_only))}"
                             if test_only else ""))


def _number(token, text):
    """@token as an integer: a literal, or a #define of one in @text."""
    m = re.fullmatch(r"(\d+)U?", token)
    if m:
        return int(m.group(1))
    m = re.search(rf"^#define {re.escape(token)}\s+(\d+)U?\s*"
                  r"(?:/\*.*\*/\s*)?$", text, re.M)
    return int(m.group(1)) if m else None


def uint_ranges(source=CHECKED_SOURCE):
    """{parameter: (min, max)} of the module's unsigned parameters that
    take a range: MMBENCH_PARAM_UINT(name, min, max)."""
    text = source.read_text()
    ranges = {}
    for name, lo, hi in re.findall(r"^MMBENCH_PARAM_UINT\((\w+), (\w+), "
                                   r"(\w+)\);", text, re.M):
        lo, hi = _number(lo, text), _number(hi, text)
        if lo is not None and hi is not None:
            ranges[name] = (lo, hi)
    return ranges


def kstrtobool(value):
    """@value as the kernel's kstrtobool() reads it (y, t, 1, on; n, f,
    0, off: by its first characters), or None where it refuses it."""
    first, second = (value + "  ")[0].lower(), (value + "  ")[1].lower()
    if first in "yt1":
        return True
    if first in "nf0":
        return False
    if first == "o" and second in "nf":
        return second == "n"
    return None


def kstrtouint(value):
    """@value as the kernel's kstrtouint(value, 0) reads it (decimal, 0x
    hex, 0 octal, one leading +), or None where it refuses it."""
    value = value[1:] if value.startswith("+") else value
    m = _BASE0.fullmatch(value)
    return _base0(m) if m else None


# A number as the kernel's base-0 parsers read it: 0x hex, 0 octal or
# decimal.
_BASE0 = re.compile(r"0[xX](?P<hex>[0-9a-fA-F]+)|(?P<oct>0[0-7]*)|"
                    r"(?P<dec>[1-9][0-9]*)")


def _base0(m):
    """The number of _BASE0's match @m."""
    return _integer(m["hex"], 16) if m["hex"] else \
        _integer(m["oct"], 8) if m["oct"] else _integer(m["dec"])


def _integer(text, base=10):
    """int(@text, @base), but 2^64 for a decimal longer than 20 digits
    (over any kernel integer; Python refuses over 4300)."""
    if base == 10 and len(text.lstrip("-")) > 20:
        return 1 << 64
    return int(text, base)


# The kernel's constants that bound list parameters, on the kernels the
# front end boots: x86_64 and arm64 with 4 KiB pages.
KERNEL_CONSTANTS = {"MAX_PAGE_ORDER": 10, "KMALLOC_MAX_CACHE_SIZE": 8192,
                    "PAGE_SIZE": 4096}


def list_ranges(source=MODULE_SOURCE):
    """{parameter: (min, max)} of the module's list parameters (arrays of
    a struct mmbench_list), and the most values a list takes."""
    text = source.read_text()
    ranges = {}
    for name, var in re.findall(r"^module_param_array_named\((\w+), "
                                r"(\w+)\.vals,", text, re.M):
        m = re.search(rf"struct mmbench_list {var} = \{{([^;]*?)\n\}};",
                      text, re.S)
        if not m:
            continue
        lo = re.search(r"\.min = (\w+)", m.group(1))
        hi = re.search(r"\.max = (\w+)", m.group(1))
        lo = _number(lo.group(1), text) if lo else 0
        hi = hi and (_number(hi.group(1), text) or
                     KERNEL_CONSTANTS.get(hi.group(1)))
        ranges[name] = (lo, hi)
    return ranges, _number("MMBENCH_MAX_LIST", text) or 8


def check_list_values(params, source=MODULE_SOURCE):
    """Refuse a list the module would refuse: more values than it takes, an
    empty or malformed one, one out of range, one given twice."""
    ranges, most = list_ranges(source)
    for name, (lo, hi) in ranges.items():
        if name not in params:
            continue
        value = params[name]
        items = value.split(",")
        if len(items) > most:
            raise Failure(f"--param {name}={value}: more than {most} values")
        seen = set()
        for item in items:
            number = kstrtouint(item)
            if (number is None or number < lo or
                    (hi is not None and number > hi)):
                # team_cpus's NR_CPUS is the kernel's: the guest's CPUs
                # bound it later (check_cpu_values()).
                raise Failure(f"--param {name}={value}: {item!r} is not a "
                              f"number from {lo} to "
                              f"{'NR_CPUS' if hi is None else hi}")
            if number in seen:
                raise Failure(f"--param {name}={value}: {number} given "
                              "twice")
            seen.add(number)


_REGION = re.compile(r"(?:(?P<all>[aA][lL][lL])|(?P<start>[0-9]+|N)"
                     r"(?:-(?P<end>[0-9]+|N))?)"
                     r"(?::(?P<off>[0-9]+|N)/(?P<group>[0-9]+|N))?")


def cpu_list(value, nbits, expand=True):
    """The CPUs of @value as the module's cpulist_parse() reads it, on a
    kernel of @nbits possible CPUs: a list such as 0-3,6, with "all",
    "N" (the last possible CPU) and range:used/group (0-7:1/2, the even
    CPUs); or None where cpulist_parse() refuses it.  Without @expand,
    an empty set for a list it takes: @nbits may be 2^32."""
    cpus, pos = set(), 0
    while True:
        while value[pos:pos + 1] == ",":
            pos += 1
        if pos == len(value):
            return cpus
        m = _REGION.match(value, pos)
        # A region ends at a comma or the end, or right after its group
        # (bitmap_parse_region() looks no further): 0-1:1/2N is 0-1:1/2
        # and N.
        if not m or (m["off"] is not None and not (m["all"] or m["end"])) \
                or (m["group"] is None and value[m.end():m.end() + 1]
                    not in ("", ",")):
            return None
        pos = m.end()

        def num(text, default):
            if text is None:
                return default
            return nbits - 1 if text == "N" else _integer(text)
        first = 0 if m["all"] else num(m["start"], None)
        last = nbits - 1 if m["all"] else num(m["end"], first)
        used = num(m["off"], 0)
        group = num(m["group"], 1)
        if max(first, last, used, group) >= 1 << 32 or first > last or \
                not group or used > group or last >= nbits:
            return None
        if m["group"] is None:
            used = group = last + 1
        for base in range(first, last + 1, group) if expand else ():
            cpus.update(range(base, min(last + 1, base + used)))


def is_cpu_list(value):
    """Whether cpulist_parse() takes @value on a kernel of some number of
    possible CPUs, from 1 to 2^32.  Only N depends on it: each region
    holds for an interval of them whose ends are 1, 2, 2^32 or one over a
    number in @value, so those are all that need trying."""
    tries = {1, 2, 1 << 32} | {int(k) + 1 for k in re.findall(r"[0-9]+",
                                                              value)
                               if len(k) <= 10 and int(k) < 1 << 32}
    return any(cpu_list(value, nbits, expand=False) is not None
               for nbits in sorted(tries))


def team_benchmarks(source=MODULE_SOURCE):
    """Names of the benchmarks that run on several CPUs (.team)."""
    return {name for name, entry in _entries(source)[0]
            if ".team = " in entry or "MMBENCH_TEAM(" in entry}


def get_option(value):
    """What the kernel's get_option() makes of @value: (the int it stores,
    whether it read a number).  The int is 32 bits, signed, of the number
    at the start of @value (base 0: 0x1f, 017, 15; a leading -;
    4294967297 is 1, a longer one wraps at 2^64 first), and 0 where no
    digit is there; an empty @value stores nothing: (None, False)."""
    if not value:
        return None, False
    minus = value.startswith("-")
    m = _BASE0.match(value[minus:])
    if not m:
        return 0, False
    text, base = (m["hex"], 16) if m["hex"] else \
        (m["oct"], 8) if m["oct"] else (m["dec"], 10)
    number = 0
    for i in range(0, len(text), 16):
        chunk = text[i:i + 16]
        number = (number * base ** len(chunk) + int(chunk, base)) % (1 << 64)
    number = (-number if minus else number) % (1 << 32)
    return (number - (1 << 32) if number >= 1 << 31 else number), True


def online_cpus(ncpus, kernel_args=(), arch="x86_64"):
    """What a guest of @ncpus CPUs has with @kernel_args, as the kernel
    reads them: its online CPUs, its possible ones, and the options that
    say so.  nr_cpus=N (N > 0) lowers the possible CPUs, its lowest
    winning; nosmp and maxcpus=N (the last one of them wins; N < 0 is no
    limit) the online ones, maxcpus=0 and nosmp to the boot CPU alone,
    which x86 (@arch) makes the only possible one too.  "-" is "_" in a
    name; nosmp=x is nosmp, maxcpus=x (no digit) is maxcpus=0, as the
    kernel's handlers read them."""
    possible, max_cpus, said_max, said = ncpus, None, None, []
    for word in kernel_args:
        name, eq, value = word.partition("=")
        name = name.replace("-", "_")
        number, read = get_option(value) if eq else (None, False)
        if name == "nosmp":
            max_cpus, said_max = 0, word
        elif name == "maxcpus" and number is not None:
            max_cpus, said_max = number, word
        elif name == "nr_cpus" and read and 0 < number < possible:
            possible = number
            said.append(word)
    if max_cpus == 0 and arch == "x86_64":
        possible = 1
    online = possible if max_cpus is None or max_cpus < 0 else \
        min(possible, max_cpus or 1)
    if said_max and (max_cpus == 0 or 0 < max_cpus < possible):
        said.append(said_max)
    return online, possible, ", ".join(
        [f"--cpus {ncpus}"] + [f"--kernel-arg {w}" for w in said
                               if online < ncpus])


def cpus_of(params, ncpus, kernel_args=(), arch="x86_64"):
    """The online CPUs that the rows on several CPUs take in a guest of
    @ncpus CPUs: those of cpus=, or all; None where cpus= is no list."""
    online, possible, _ = online_cpus(ncpus, kernel_args, arch)
    if "cpus" not in params:
        return set(range(online))
    cpus = cpu_list(params["cpus"], possible)
    return None if cpus is None else cpus & set(range(online))


def check_cpu_values(params, ncpus, source=MODULE_SOURCE, kernel_args=(),
                     arch="x86_64"):
    """Refuse CPUs the guest of @ncpus CPUs (fewer online by its
    @kernel_args) does not have, team_cpus= above those the rows on
    several CPUs have, and slow_into of such a row where it has fewer
    than the row runs on (it would not run: nothing slowed)."""
    online, possible, said = online_cpus(ncpus, kernel_args, arch)
    value = params.get("cpu")
    if value is not None and (not re.fullmatch(r"-1|[0-9]+", value) or
                              _integer(value) >= online):
        raise Failure(f"--param cpu={value}: want -1 or an online CPU of "
                      f"the guest's {online} ({said}), 0 to {online - 1}")
    if "cpus" in params:
        value = params["cpus"]
        cpus = cpu_list(value, possible)
        if not is_cpu_list(value):
            raise Failure(f"--param cpus={value}: not a CPU list as "
                          "cpulist_parse() reads it: N, N-M, N-M:U/G (M "
                          "not below N, U not over G, G over 0), all; N "
                          "is also the last CPU; separated by commas")
        if not cpus or max(cpus) >= online:
            raise Failure(f"--param cpus={value}: " +
                          ("no CPU in it" if cpus == set() else
                           "want a list of the guest's online CPUs "
                           f"({said}), 0 to {online - 1}, such as 0-3,6 "
                           "(or all, N, 0-7:1/2 as cpulist_parse() "
                           "reads them)"))
    have = len(cpus_of(params, ncpus, kernel_args, arch))
    said += f", cpus={params['cpus']}" if "cpus" in params else ""
    for item in params.get("team_cpus", "").split(","):
        if (kstrtouint(item) or 0) > have:
            raise Failure(f"--param team_cpus={params['team_cpus']}: "
                          f"{item} is more than the {have} CPU"
                          f"{'s' if have != 1 else ''} the guest "
                          f"has for the rows on several CPUs ({said})")
    benches, teams = benchmarks(source), team_benchmarks(source)
    # A pair (a team without a list) runs on 2 CPUs, or not at all: a
    # selection of those alone would measure nothing.
    chosen = set(params.get("benchmarks", "all").split(",")) - {"baseline"}
    if have < 2 and chosen and all(b in teams and benches[b] is None
                                   for b in chosen):
        raise Failure(f"--param benchmarks={params['benchmarks']}: "
                      f"{', '.join(sorted(chosen))} run on 2 CPUs, and the "
                      f"guest has {have} for them ({said}): nothing would "
                      "run")
    for entry in params.get("slow_into", "").split(","):
        row = entry.rpartition(":")[0]
        if bench_of(row, benches) not in teams:
            continue
        # A pair runs on 2 CPUs, a <benchmark>_cpus<N> row on N.
        need = int(row.rpartition("_cpus")[2]) \
            if re.search(r"_cpus\d+$", row) else 2
        if have < need:
            raise Failure(
                f"--param slow_into={params['slow_into']}: {row} runs on "
                f"{need} CPUs, and the guest has {have} for it ({said}): "
                "it would not run, and nothing would be slowed")


def check_parameter_values(params, source=CHECKED_SOURCE):
    """Refuse a value the module would refuse, for its ranged unsigned
    parameters (param_set_uint_minmax()): a number within the range."""
    for name, (lo, hi) in uint_ranges(source).items():
        if name not in params:
            continue
        value = params[name]
        number = kstrtouint(value)
        if number is None or not lo <= number <= hi:
            raise Failure(f"--param {name}={value}: want a number "
                          f"from {lo} to {hi}" +
                          (" (a leading 0 makes it octal to the kernel)"
                           if re.fullmatch(r"0[0-9]+", value) else ""))
    # The knobs patch's break_check: strcmp(mmbench_break_check, "<name>").
    known = sorted(set(re.findall(r'strcmp\(mmbench_break_check, "(\w+)"\)',
                                  source.read_text())))
    if "break_check" in params and params["break_check"] not in known:
        raise Failure(f"--param break_check={params['break_check']}: want "
                      + " or ".join(known) + " (test only: a check made to "
                      "fail)")
    check_slow_into(params, source)


def check_slow_into(params, source=CHECKED_SOURCE):
    """slow_into=ROW:STEPS,... as the module (its knobs patch) checks it:
    STEPS within its range, ROW a row that is not the baseline and is in
    benchmarks= when that is given (whether a list parameter's value makes
    the row, the module says)."""
    value = params.get("slow_into")
    if value is None:
        return
    selected = params.get("benchmarks", "all").split(",")
    text = source.read_text()
    # The knobs patch: "kstrtouint(colon + 1, 10, &steps) || !steps ||
    # steps > 10000", into "static char *mmbench_slow_into[8]".
    m = re.search(r"kstrtouint\(colon \+ 1, (\d+), &steps\)[^;]*?"
                  r"steps > (\w+)", text, re.S)
    hi = _number("MMBENCH_MAX_SLOW", text) or (m and _number(m.group(2),
                                                             text))
    base = int(m.group(1)) if m else 0
    array = re.search(r"^static char \*mmbench_slow_into\[(\w+)\];", text,
                      re.M)
    most = _number("MMBENCH_MAX_LIST", text) or \
        (array and _number(array.group(1), text)) or 8
    if len(value.split(",")) > most:
        raise Failure(f"--param slow_into={value}: more than {most} "
                      "entries")
    longest = (_number("MMBENCH_NAME_LEN", text) or 48) + 6
    for entry in value.split(","):
        if len(entry) > longest:
            raise Failure(f"--param slow_into={value[:60]}...: an entry "
                          f"over {longest} characters, longer than "
                          "ROW:STEPS can be")
    benches = benchmarks(source)
    seen = set()
    for entry in value.split(","):
        row, sep, steps = entry.rpartition(":")
        number = kstrtouint(steps) if base == 0 else \
            _integer(steps.lstrip("+")) if re.fullmatch(
                r"\+?[0-9]+", steps) and base == 10 else None
        if not sep or not row:
            raise Failure(f"--param slow_into={value}: {entry!r} is not "
                          "ROW:STEPS")
        if number is None or not 1 <= number <= (hi or number):
            raise Failure(f"--param slow_into={value}: {steps!r} is not a "
                          f"number from 1 to {hi}")
        bench = bench_of(row, benches)
        if bench == row and benches[bench] is not None:
            raise Failure(f"--param slow_into={value}: {row} has a row per "
                          f"value of its list: name one, e.g. {row}_"
                          f"{benches[bench]}<N> (N a value of the list)")
        if bench is None or row in seen:
            raise Failure(f"--param slow_into={value}: "
                          + (f"{row} given twice" if row in seen else
                             f"no row {row!r}; {_hint(row, benches)}rows "
                             "are named as in /sys/kernel/mmbench "
                             "(kmalloc_64, alloc_pages_order0)"))
        if bench == "baseline":
            raise Failure(f"--param slow_into={value}: {row} is what the "
                          "others are judged against")
        if selected != ["all"] and bench not in selected:
            raise Failure(f"--param slow_into={value}: {row} is not in "
                          f"the load: its benchmark {bench} is not in "
                          f"benchmarks={params['benchmarks']}")
        seen.add(row)


def ceiling_names(path=CEILINGS):
    """Names the ceilings file at @path gives a ceiling."""
    names = set()
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].split()
        if line:
            names.add(line[0])
    return names


def bench_of(name, benches):
    """The benchmark @name is, or is a row of; None if it is neither."""
    if name in benches:
        return name
    # Longest first: alloc_pages_batch_order0 is not alloc_pages'.
    for bench in sorted(benches, key=len, reverse=True):
        suffix = benches[bench]
        if suffix is not None and \
           re.fullmatch(rf"{re.escape(bench)}_{suffix}\d+", name):
            return bench
    return None


def _hint(name, known):
    close = difflib.get_close_matches(name, known, n=1)
    return f"did you mean {close[0]}? " if close else ""


def check_selection(params, benches):
    """Check the benchmarks= of @params {name: value} as the module checks
    it; raises Failure naming the bad name."""
    value = params.get("benchmarks", "all")
    if value == "all":
        return
    names = value.split(",")
    for name in names:
        if name == "all":
            raise Failure(f"--param benchmarks={value}: \"all\" stands "
                          "alone, not with names")
        if not name:
            raise Failure(f"--param benchmarks={value}: empty name")
        if name not in benches:
            raise Failure(
                f"--param benchmarks={value}: no benchmark {name!r}; "
                f"{_hint(name, benches)}the module has: "
                + ", ".join(b for b in benches if b != "baseline"))
        if name == "baseline":
            raise Failure(f"--param benchmarks={value}: the baseline always "
                          "runs; do not name it")
        if names.count(name) > 1:
            raise Failure(f"--param benchmarks={value}: {name} given twice")


def list_defaults(source=MODULE_SOURCE):
    """{parameter: [values]} of the module's list parameters as their
    MODULE_PARM_DESC() says their defaults ("(default 8,64,...)"), the
    kernel's constants at their x86_64 values."""
    text = source.read_text()
    out = {}
    for name in list_ranges(source)[0]:
        m = re.search(rf"MODULE_PARM_DESC\({name},\s*\"[^;]*?\(default "
                      r"([0-9A-Z_,]+)\)", text)
        if m:
            out[name] = [int(v) if v.isdigit() else KERNEL_CONSTANTS.get(v)
                         for v in m.group(1).split(",")]
    return out


def check_ceiling_in_load(name, params, benches, source=MODULE_SOURCE):
    """Refuse --ceiling for a benchmark or row the load does not run:
    its benchmark not in benchmarks=, or its row's value not in the list
    parameter (as given, else the module's default)."""
    bench = bench_of(name, benches)
    selected = params.get("benchmarks", "all").split(",")
    if selected != ["all"] and bench not in selected:
        raise Failure(f"--ceiling {name}: not in this load: "
                      f"benchmarks={params['benchmarks']} leaves out {bench}")
    param = list_params(source).get(bench)
    if name == bench or not param:
        return
    given = param in params
    values = [kstrtouint(v) for v in params[param].split(",")] if given \
        else list_defaults(source).get(param)
    value = int(re.search(r"\d+$", name).group())
    if values is not None and value not in values:
        raise Failure(f"--ceiling {name}: no such row in this load: {param}="
                      + ",".join(str(v) for v in values)
                      + ("" if given else " (the default)")
                      + f"; add {value} with --param {param}=...")


def check_ceiling_name(name, benches, ceiled, where=None):
    """Refuse a ceiling for no benchmark or row, or for one never held to
    a ceiling (baseline, ndelay); @where says where @name came from."""
    where = where or f"--ceiling {name}:"
    bench = bench_of(name, benches)
    if bench is None:
        rows = ", ".join(f"{b}_{s}<N>" for b, s in benches.items()
                         if s is not None and b in ceiled)
        raise Failure(f"{where} no benchmark or row {name!r}; "
                      f"{_hint(name, list(benches))}want a benchmark "
                      f"({', '.join(b for b in benches if b in ceiled)}) "
                      f"or a row ({rows})")
    if bench not in ceiled:
        raise Failure(f"{where} {bench} is a calibration benchmark: the "
                      "test holds its rows to no ceiling")
    if name != bench:
        param = list_params().get(bench)
        lo, hi = list_ranges()[0].get(param, (0, None))
        digits = re.search(r"\d+$", name).group()
        value = _integer(digits)
        if value < lo or (hi is not None and value > hi):
            raise Failure(f"{where} {name} is no row the module can run: "
                          f"{param}= takes {lo} to {hi}")
        if digits != str(value):
            raise Failure(f"{where} {name} is no row the module can run: "
                          f"it names its rows {name[:-len(digits)]}{value}")
