"""Code shapes real packages have and fixtures did not (seen by field probe 4): extensionless scripts (a ``#!`` line), C# properties,
a Kotlin constant among the imports, a C function after a preprocessor line or with a macro-decorated
return type; each on a real index of real files."""

from __future__ import annotations

from workspace_fixture import indexed_files, top10

from agent_brain_lab.engine.graph_names import language_of

BATS_MAIN = """#!/usr/bin/env bash
set -e

# Print the usage of the command and leave with the given status
abort_with_usage() {
  printf 'Error: unknown formatter "%s"\\n' "$1" >&2
  exit 1
}

main() {
  bats_resolve_formatter "$@" || abort_with_usage "$@"
}

main "$@"
"""

EXEC_TEST = """#!/bin/sh
# Run one test file, counting the tests it declares
count_tests_in_file() {
  grep -c '^@test' "$1"
}
"""

TOOL_PY = """#!/usr/bin/env -S python3.11 -u
def rotate_keyring(path):
    '''Rotate the signing keys stored in the keyring at path.'''
    return path
"""

CALLER_SH = """#!/bin/bash
run_all() {
  count_tests_in_file "$1"
}
"""


def test_an_extensionless_script_is_indexed_as_its_shebang_language(tmp_path):
    """``bin/bats`` and ``libexec/*`` have no suffix: their ``#!`` line names the language, so they
    are code with symbols (the suffix no longer decides alone); a NUL makes such a file binary, and a
    file with no suffix and no ``#!`` stays out."""
    brain = indexed_files(
        tmp_path,
        {
            "bin/bats": BATS_MAIN,
            "libexec/bats-exec-test": EXEC_TEST,
            "libexec/run-all": CALLER_SH,
            "tools/rotate": TOOL_PY,
            "tools/notes": "just words, no interpreter\n",
        },
    )
    (tmp_path / "tools" / "blob").write_bytes(b"#!/bin/sh\n\x00\x01binary")
    report = brain.index()
    skipped = {s.path: s.reason for s in report.skipped}
    assert skipped.get("tools/blob") == "binary file"
    assert skipped.get("tools/notes") == "unsupported file type"
    first = top10(brain, 'Error: unknown formatter "junit"')[0]
    assert (first.source, first.language, first.symbol_name) == ("bin/bats", "bash", "abort_with_usage")
    hit = top10(brain, "rotate the signing keys in the keyring")[0]
    assert (hit.source, hit.language, hit.symbol_name) == ("tools/rotate", "python", "rotate_keyring")
    only_bash = brain.query("count tests in file", mode="bm25", top_k=10, languages=["bash"]).results
    assert {r.source for r in only_bash} >= {"libexec/bats-exec-test", "libexec/run-all"}
    callers = brain.query("which functions call count_tests_in_file", mode="graph", top_k=10).results
    assert "run_all" in {r.symbol_name for r in callers}
    assert language_of("libexec/run-all", "bash") == "bash" and language_of("lib/x.ts") == "javascript"


HANDLE_CS = """using System;

namespace Storage.Files;

/// <summary>An open file of the store.</summary>
public class FileHandle
{
    /// <summary>How long a read waits for the disk before it gives up, in milliseconds.</summary>
    public int ReadTimeout { get; set; } = 3000;

    /// <summary>The handle is usable: its stream is there and it was not disposed.</summary>
    public bool IsUsable
    {
        get { return _stream != null && !_disposed && StreamAlive(_stream); }
    }

    /// <summary>Bytes still buffered, not yet written.</summary>
    public int Pending => BufferedBytes(_buffer);

    public void Close() { _disposed = true; }
}
"""

READER_CS = """namespace Storage.Files;

public class Reader
{
    public byte[] Read(FileHandle handle)
    {
        // wait ReadTimeout: the ReadTimeout of the handle bounds the read; ReadTimeout elapsed -> fail
        var waited = Wait(handle.ReadTimeout);
        if (waited > handle.ReadTimeout) throw new TimeoutException("ReadTimeout elapsed");
        return Fetch(handle);
    }
}
"""


def test_a_csharp_property_with_code_is_a_method_and_one_that_stores_is_a_declared_member(tmp_path):
    """``bool IsUsable { get { … } }`` and ``int Pending => …`` run code: each is a method of its
    class with its doc comment (as a TypeScript getter is), with its calls; an auto-property
    ``int ReadTimeout { get; set; }`` stores a value, a field: "what does ReadTimeout mean" puts the
    class declaring it first, above the code that says its name more often."""
    brain = indexed_files(tmp_path, {"Files/FileHandle.cs": HANDLE_CS, "Files/Reader.cs": READER_CS})
    first = top10(brain, "when is a file handle usable")[0]
    owner = "Storage.Files.FileHandle"
    assert (first.symbol_name, first.symbol_type, first.parent_symbol) == ("IsUsable", "method", owner)
    assert "<summary>The handle is usable" in first.text
    pending = top10(brain, "how many bytes are still buffered, pending")[0]
    assert (pending.symbol_name, pending.symbol_type) == ("Pending", "method")
    callers = brain.query("which methods call StreamAlive", mode="graph", top_k=5).results
    assert callers and callers[0].symbol_name == "IsUsable"
    meaning = top10(brain, "what does ReadTimeout mean")[0]
    assert (meaning.source, meaning.symbol_name) == ("Files/FileHandle.cs", "FileHandle")


WATCHER_KT = """package expo.modules.filesystem

import android.net.Uri
import android.os.Build
import android.os.FileObserver
import androidx.core.net.toUri
import expo.modules.kotlin.AppContext
import expo.modules.kotlin.records.Field
import expo.modules.kotlin.records.Record
import expo.modules.kotlin.sharedobjects.SharedObject
import kotlinx.coroutines.Job
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import java.io.File
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds

private val DEFAULT_DEBOUNCE = 100.milliseconds

class FileSystemWatcher(private val file: File) : SharedObject() {
  private var job: Job? = null

  fun start(debounce: Duration?) {
    val wait = debounce ?: DEFAULT_DEBOUNCE
    job = appContext.launch { delay(wait); emit(file) }
  }
}
"""

CONFIG_PY = '''"""Settings of the uploader."""

import hashlib
import logging
import mimetypes
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .checksums import Crc32Checksum, Md5Checksum, Sha256Checksum, StreamingChecksum
from .progress import ProgressBar, ProgressCallback, TransferProgress
from .transport import Adapter, Backoff, HTTPAdapter, Retry, Session, Timeout

DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024
'''


def test_a_constant_after_the_imports_is_a_part_of_its_own(tmp_path):
    """A module constant declared right after a file's imports began no part: it was one chunk with
    the package line and twenty imports, whose words drowned its own. Module code after the imports
    now begins a part (the comment right above it with it), in every language: a Kotlin top-level
    ``val``, a Python constant under its module docstring. (A few short imports stay with the code.)"""
    brain = indexed_files(tmp_path, {"filesystem/FileSystemWatcher.kt": WATCHER_KT, "uploader/config.py": CONFIG_PY})
    found = top10(brain, "what is the default debounce of the file watcher")
    declared = next(r for r in found if "private val DEFAULT_DEBOUNCE" in r.text)
    assert (declared.source, declared.start_line, declared.end_line) == ("filesystem/FileSystemWatcher.kt", 18, 18)
    assert found.index(declared) < 2  # with the method using it; the imports' chunk below both
    chunk = top10(brain, "default chunk bytes of the uploader")[0]
    assert (chunk.source, chunk.start_line, chunk.end_line) == ("uploader/config.py", 16, 16)


DECODER_C = """#include "lz.h"

static unsigned read_length(const char** ip)
{
    return (unsigned)**ip;
}

/*! decode_generic() :
 *  The one decoder every API function instantiates.
 */
LZ_FORCE_INLINE int
decode_generic(const char* src, char* dst, int size)
{
    int n = 0;
    {
#if LZ_FAST_LOOP
        if (size < 64) goto safe_decode;
        while (1) {
            n += fast_copy(dst, src, 32);
            if (n > size) break;
        }
    safe_decode:
#endif
        while (1) {
            n += 1;
#if LZ_FAST_LOOP
        safe_literal_copy:
#endif
            if (n >= size) break;
#if LZ_FAST_LOOP
        safe_match_copy:
#endif
            dst[n] = src[n];
        }
        return n;
    _output_error:
        return -1;
    }
}

LZ_FORCE_O2
int decode_safe(const char* src, char* dst, int size)
{
    return decode_generic(src, dst, size);
}
"""


def test_a_c_function_with_a_label_right_above_a_preprocessor_line_is_a_symbol(tmp_path):
    """lz4.c's ``LZ4_decompress_generic``: its macro-decorated definition (``LZ4_FORCE_INLINE int``
    on its own line) holds labels right above ``#endif`` (``safe_decode:``), which no grammar reads
    (a label needs a statement): the function was module code, no symbol, no calls. The parser now
    reads such a label as a statement of the same length; the chunk keeps the file's lines."""
    brain = indexed_files(tmp_path, {"lib/decoder.c": DECODER_C})
    first = top10(brain, "the one decoder every API function instantiates")[0]
    assert (first.symbol_name, first.start_line, first.end_line) == ("decode_generic", 8, 39)
    assert "    safe_decode:\n#endif" in first.text
    callers = brain.query("which functions call fast_copy", mode="graph", top_k=5).results
    assert callers and callers[0].symbol_name == "decode_generic"
    its_callers = brain.query("which functions call decode_generic", mode="graph", top_k=5).results
    assert its_callers and its_callers[0].symbol_name == "decode_safe"


def test_the_shebang_line_names_the_language_only_for_languages_the_chunker_reads():
    from agent_brain_lab.engine.workspace import classify

    assert classify("bin/tool", b"#!/usr/bin/env -S python3.11 -u\n") == ("code", "python")
    assert classify("bin/tool", b"#! /bin/sh -e\n") == ("code", "bash")
    assert classify("bin/serve", b"#!/usr/bin/env node\n") == ("code", "javascript")
    assert classify("test/run", b"#!/usr/bin/env bash\n") == ("test", "bash")
    assert classify("bin/tool", b"#!/usr/bin/perl -w\n") is None  # no Perl chunker
    assert classify("bin/tool", b"#!/usr/bin/env\n") is None
    assert classify("bin/tool", b"echo #!/bin/sh\n") is None  # only the first line
    assert classify("notes.md", b"#!/bin/sh\n") == ("doc", "markdown")  # the suffix decides first
