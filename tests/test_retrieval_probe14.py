"""Multi mode on a real index: classes of natural question that ranked below their answers on two
packages nobody had tuned on (field probe 14: logrus 1.9.0, Go, from Debian's
golang-github-sirupsen-logrus-dev; python-dateutil 2.9.0.post0 from PyPI).

- ``ParserError: Unknown string format: ...``: of two sites making the message alike, the one raising
  the class the pasted line names (``raise ParserError("Unknown string format: %s", timestr)``), not
  ``raise ValueError("unknown string format")`` (no hole, so it "spelled more" of the message).
- A pasted structured log line (``level=info msg=started logrus_error="can not add field \\"handler\\""``):
  its quoted field values are the messages the code made; the level and the app's own message are not.
- "which formatters implement the Formatter interface": the plural of the name and the kind word
  (``interface``) are the question's scaffolding, so it asks a relation (the implementations).
- "what is the default log level": ``Level: InfoLevel`` in ``New()``: a default given as an enum
  constant named as Go (and C#) name them, and a setting named by the words before "of" ("log level").
- "what does cache=True do on an rrule": a parameter written with its value is written as code, and its
  entry in a doc comment (``:param cache:``) says what it does; the entry of the code named first.

Excerpts, verbatim line runs: logrus 1.9.0's ``entry.go`` (imports, ``WithField``/``WithFields``),
``logger.go`` (the ``Logger`` struct, ``New``, ``WithField``/``WithFields``/``WithError``), ``logrus.go``
(``Level``, ``ParseLevel``, the level constants), ``hooks.go``, ``formatter.go``, ``json_formatter.go`` (its
first fields and the start of ``Format``), ``hooks/writer/writer.go``; python-dateutil 2.9.0.post0's
``parser.parse`` body and ``ParserError`` (``parser/_parser.py``), ``tzstr.__init__`` (``tz/tz.py``), and
``rrule.py``'s ``rrulebase`` head, ``rrule``'s docstring (its first and last lines) and ``rruleset``'s."""

from __future__ import annotations

from workspace_fixture import indexed_files, top10

from agent_brain_lab.engine.retrieval.evidence import _names_value, messages_of, raised_class
from agent_brain_lab.engine.retrieval.intent import analyse

DATEUTIL_PARSER_PY = r'''import datetime

import six


class parser(object):
    def parse(self, timestr, default=None,
              ignoretz=False, tzinfos=None, **kwargs):
        if default is None:
            default = datetime.datetime.now().replace(hour=0, minute=0,
                                                      second=0, microsecond=0)

        res, skipped_tokens = self._parse(timestr, **kwargs)

        if res is None:
            raise ParserError("Unknown string format: %s", timestr)

        if len(res) == 0:
            raise ParserError("String does not contain a date: %s", timestr)

        try:
            ret = self._build_naive(res, default)
        except ValueError as e:
            six.raise_from(ParserError(str(e) + ": %s", timestr), e)

        if not ignoretz:
            ret = self._build_tzaware(ret, res, tzinfos)

        if kwargs.get('fuzzy_with_tokens', False):
            return ret, skipped_tokens
        else:
            return ret


class ParserError(ValueError):
    """Exception subclass used for any failure to parse a datetime string.

    This is a subclass of :py:exc:`ValueError`, and should be raised any time
    earlier versions of ``dateutil`` would have raised ``ValueError``.

    .. versionadded:: 2.8.1
    """
    def __str__(self):
        try:
            return self.args[0] % self.args[1:]
        except (TypeError, IndexError):
            return super(ParserError, self).__str__()

    def __repr__(self):
        args = ", ".join("'%s'" % arg for arg in self.args)
        return "%s(%s)" % (self.__class__.__name__, args)

'''

DATEUTIL_TZ_PY = r"""class tzstr(tzrange):
    def __init__(self, s, posix_offset=False):
        global parser
        from dateutil.parser import _parser as parser

        self._s = s

        res = parser._parsetz(s)
        if res is None or res.any_unused_tokens:
            raise ValueError("unknown string format")

        # Here we break the compatibility with the TZ variable handling.
        # GMT-3 actually *means* the timezone -3.
        if res.stdabbr in ("GMT", "UTC") and not posix_offset:
            res.stdoffset *= -1

        # We must initialize it first, since _delta() needs
        # _std_offset and _dst_offset set. Use False in start/end
        # to avoid building it two times.
        tzrange.__init__(self, res.stdabbr, res.stdoffset,
                         res.dstabbr, res.dstoffset,
                         start=False, end=False)

        if not res.dstabbr:
            self._start_delta = None
            self._end_delta = None
        else:
            self._start_delta = self._delta(res.start)
            if self._start_delta:
                self._end_delta = self._delta(res.end, isend=1)

        self.hasdst = bool(self._start_delta)
"""

LOGRUS_ENTRY_GO = r"""package logrus

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Add a single field to the Entry.
func (entry *Entry) WithField(key string, value interface{}) *Entry {
	return entry.WithFields(Fields{key: value})
}

// Add a map of fields to the Entry.
func (entry *Entry) WithFields(fields Fields) *Entry {
	data := make(Fields, len(entry.Data)+len(fields))
	for k, v := range entry.Data {
		data[k] = v
	}
	fieldErr := entry.err
	for k, v := range fields {
		isErrField := false
		if t := reflect.TypeOf(v); t != nil {
			switch {
			case t.Kind() == reflect.Func, t.Kind() == reflect.Ptr && t.Elem().Kind() == reflect.Func:
				isErrField = true
			}
		}
		if isErrField {
			tmp := fmt.Sprintf("can not add field %q", k)
			if fieldErr != "" {
				fieldErr = entry.err + ", " + tmp
			} else {
				fieldErr = tmp
			}
		} else {
			data[k] = v
		}
	}
	return &Entry{Logger: entry.Logger, Data: data, Time: entry.Time, err: fieldErr, Context: entry.Context}
}
"""

LOGRUS_LOGGER_GO = r"""package logrus

import (
	"context"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

type Logger struct {
	// The logs are `io.Copy`'d to this in a mutex. It's common to set this to a
	// file, or leave it default which is `os.Stderr`. You can also set this to
	// something more adventurous, such as logging to Kafka.
	Out io.Writer
	// Hooks for the logger instance. These allow firing events based on logging
	// levels and log entries. For example, to send errors to an error tracking
	// service, log to StatsD or dump the core on fatal errors.
	Hooks LevelHooks
	// All log entries pass through the formatter before logged to Out. The
	// included formatters are `TextFormatter` and `JSONFormatter` for which
	// TextFormatter is the default. In development (when a TTY is attached) it
	// logs with colors, but to a file it wouldn't. You can easily implement your
	// own that implements the `Formatter` interface, see the `README` or included
	// formatters for examples.
	Formatter Formatter

	// Flag for whether to log caller info (off by default)
	ReportCaller bool

	// The logging level the logger should log at. This is typically (and defaults
	// to) `logrus.Info`, which allows Info(), Warn(), Error() and Fatal() to be
	// logged.
	Level Level
	// Used to sync writing to the log. Locking is enabled by Default
	mu MutexWrap
	// Reusable empty entry
	entryPool sync.Pool
	// Function to exit the application, defaults to `os.Exit()`
	ExitFunc exitFunc
	// The buffer pool used to format the log. If it is nil, the default global
	// buffer pool will be used.
	BufferPool BufferPool
}

// Creates a new logger. Configuration should be set by changing `Formatter`,
// `Out` and `Hooks` directly on the default logger instance. You can also just
// instantiate your own:
//
//    var log = &logrus.Logger{
//      Out: os.Stderr,
//      Formatter: new(logrus.TextFormatter),
//      Hooks: make(logrus.LevelHooks),
//      Level: logrus.DebugLevel,
//    }
//
// It's recommended to make this a global instance called `log`.
func New() *Logger {
	return &Logger{
		Out:          os.Stderr,
		Formatter:    new(TextFormatter),
		Hooks:        make(LevelHooks),
		Level:        InfoLevel,
		ExitFunc:     os.Exit,
		ReportCaller: false,
	}
}

func (logger *Logger) newEntry() *Entry {
	entry, ok := logger.entryPool.Get().(*Entry)
	if ok {
		return entry
	}
	return NewEntry(logger)
}

func (logger *Logger) releaseEntry(entry *Entry) {
	entry.Data = map[string]interface{}{}
	logger.entryPool.Put(entry)
}

// WithField allocates a new entry and adds a field to it.
// Debug, Print, Info, Warn, Error, Fatal or Panic must be then applied to
// this new returned entry.
// If you want multiple fields, use `WithFields`.
func (logger *Logger) WithField(key string, value interface{}) *Entry {
	entry := logger.newEntry()
	defer logger.releaseEntry(entry)
	return entry.WithField(key, value)
}

// Adds a struct of fields to the log entry. All it does is call `WithField` for
// each `Field`.
func (logger *Logger) WithFields(fields Fields) *Entry {
	entry := logger.newEntry()
	defer logger.releaseEntry(entry)
	return entry.WithFields(fields)
}

// Add an error as single field to the log entry.  All it does is call
// `WithError` for the given `error`.
func (logger *Logger) WithError(err error) *Entry {
	entry := logger.newEntry()
	defer logger.releaseEntry(entry)
	return entry.WithError(err)
}
"""

LOGRUS_LOGRUS_GO = r"""package logrus

import (
	"fmt"
	"log"
	"strings"
)

// Fields type, used to pass to `WithFields`.
type Fields map[string]interface{}

// Level type
type Level uint32

// Convert the Level to a string. E.g. PanicLevel becomes "panic".
func (level Level) String() string {
	if b, err := level.MarshalText(); err == nil {
		return string(b)
	} else {
		return "unknown"
	}
}

// ParseLevel takes a string level and returns the Logrus log level constant.
func ParseLevel(lvl string) (Level, error) {
	switch strings.ToLower(lvl) {
	case "panic":
		return PanicLevel, nil
	case "fatal":
		return FatalLevel, nil
	case "error":
		return ErrorLevel, nil
	case "warn", "warning":
		return WarnLevel, nil
	case "info":
		return InfoLevel, nil
	case "debug":
		return DebugLevel, nil
	case "trace":
		return TraceLevel, nil
	}

	var l Level
	return l, fmt.Errorf("not a valid logrus Level: %q", lvl)
}

// A constant exposing all logging levels
var AllLevels = []Level{
	PanicLevel,
	FatalLevel,
	ErrorLevel,
	WarnLevel,
	InfoLevel,
	DebugLevel,
	TraceLevel,
}

// These are the different logging levels. You can set the logging level to log
// on your instance of logger, obtained with `logrus.New()`.
const (
	// PanicLevel level, highest level of severity. Logs and then calls panic with the
	// message passed to Debug, Info, ...
	PanicLevel Level = iota
	// FatalLevel level. Logs and then calls `logger.Exit(1)`. It will exit even if the
	// logging level is set to Panic.
	FatalLevel
	// ErrorLevel level. Logs. Used for errors that should definitely be noted.
	// Commonly used for hooks to send errors to an error tracking service.
	ErrorLevel
	// WarnLevel level. Non-critical entries that deserve eyes.
	WarnLevel
	// InfoLevel level. General operational entries about what's going on inside the
	// application.
	InfoLevel
	// DebugLevel level. Usually only enabled when debugging. Very verbose logging.
	DebugLevel
	// TraceLevel level. Designates finer-grained informational events than the Debug.
	TraceLevel
)

"""

LOGRUS_HOOKS_GO = r"""package logrus

// A hook to be fired when logging on the logging levels returned from
// `Levels()` on your implementation of the interface. Note that this is not
// fired in a goroutine or a channel with workers, you should handle such
// functionality yourself if your call is non-blocking and you don't wish for
// the logging calls for levels returned from `Levels()` to block.
type Hook interface {
	Levels() []Level
	Fire(*Entry) error
}

// Internal type for storing the hooks on a logger instance.
type LevelHooks map[Level][]Hook

// Add a hook to an instance of logger. This is called with
// `log.Hooks.Add(new(MyHook))` where `MyHook` implements the `Hook` interface.
func (hooks LevelHooks) Add(hook Hook) {
	for _, level := range hook.Levels() {
		hooks[level] = append(hooks[level], hook)
	}
}

// Fire all the hooks for the passed level. Used by `entry.log` to fire
// appropriate hooks for a log entry.
func (hooks LevelHooks) Fire(level Level, entry *Entry) error {
	for _, hook := range hooks[level] {
		if err := hook.Fire(entry); err != nil {
			return err
		}
	}

	return nil
}
"""

LOGRUS_FORMATTER_GO = r"""package logrus

import "time"

// Default key names for the default fields
const (
	defaultTimestampFormat = time.RFC3339
	FieldKeyMsg            = "msg"
	FieldKeyLevel          = "level"
	FieldKeyTime           = "time"
	FieldKeyLogrusError    = "logrus_error"
	FieldKeyFunc           = "func"
	FieldKeyFile           = "file"
)

// The Formatter interface is used to implement a custom Formatter. It takes an
// `Entry`. It exposes all the fields, including the default ones:
//
// * `entry.Data["msg"]`. The message passed from Info, Warn, Error ..
// * `entry.Data["time"]`. The timestamp.
// * `entry.Data["level"]. The level the entry was logged at.
//
// Any additional fields added with `WithField` or `WithFields` are also in
// `entry.Data`. Format is expected to return an array of bytes which are then
// logged to `logger.Out`.
type Formatter interface {
	Format(*Entry) ([]byte, error)
}
"""

LOGRUS_JSON_FORMATTER_GO = r"""package logrus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
)

type fieldKey string

// FieldMap allows customization of the key names for default fields.
type FieldMap map[fieldKey]string

func (f FieldMap) resolve(key fieldKey) string {
	if k, ok := f[key]; ok {
		return k
	}

	return string(key)
}

// JSONFormatter formats logs into parsable json
type JSONFormatter struct {
	// TimestampFormat sets the format used for marshaling timestamps.
	// The format to use is the same than for time.Format or time.Parse from the standard
	// library.
	// The standard Library already provides a set of predefined format.
	TimestampFormat string

	// DisableTimestamp allows disabling automatic timestamps in output
	DisableTimestamp bool

	// DisableHTMLEscape allows disabling html escaping in output
	DisableHTMLEscape bool
}

// Format renders a single log entry
func (f *JSONFormatter) Format(entry *Entry) ([]byte, error) {
	data := make(Fields, len(entry.Data)+4)
	for k, v := range entry.Data {
		switch v := v.(type) {
		case error:
			// Otherwise errors are ignored by `encoding/json`
			// https://github.com/sirupsen/logrus/issues/137
			data[k] = v.Error()
		default:
			data[k] = v
		}
	}

	return nil, nil
}
"""

LOGRUS_WRITER_HOOK_GO = r"""package writer

import (
	"io"

	log "github.com/sirupsen/logrus"
)

// Hook is a hook that writes logs of specified LogLevels to specified Writer
type Hook struct {
	Writer    io.Writer
	LogLevels []log.Level
}

// Fire will be called when some logging function is called with current hook
// It will format log entry to string and write it to appropriate writer
func (hook *Hook) Fire(entry *log.Entry) error {
	line, err := entry.Bytes()
	if err != nil {
		return err
	}
	_, err = hook.Writer.Write(line)
	return err
}

// Levels define on which log levels this hook would trigger
func (hook *Hook) Levels() []log.Level {
	return hook.LogLevels
}
"""

DATEUTIL_RRULE_PY = r'''class rrulebase(object):
    def __init__(self, cache=False):
        if cache:
            self._cache = []
            self._cache_lock = _thread.allocate_lock()
            self._invalidate_cache()
        else:
            self._cache = None
            self._cache_complete = False
            self._len = None

    def __iter__(self):
        if self._cache_complete:
            return iter(self._cache)
        elif self._cache is None:
            return self._iter()
        else:
            return self._iter_cached()

    def _invalidate_cache(self):
        if self._cache is not None:
            self._cache = []
            self._cache_complete = False
            self._cache_gen = self._iter()

            if self._cache_lock.locked():
                self._cache_lock.release()

        self._len = None


class rrule(rrulebase):
    """
    That's the base of the rrule operation. It accepts all the keywords
    defined in the RFC as its constructor parameters (except byday,
    which was renamed to byweekday) and more. The constructor prototype is::

            rrule(freq)
    :param byhour:
        If given, it must be either an integer, or a sequence of integers,
        meaning the hours to apply the recurrence to.
    :param byminute:
        If given, it must be either an integer, or a sequence of integers,
        meaning the minutes to apply the recurrence to.
    :param bysecond:
        If given, it must be either an integer, or a sequence of integers,
        meaning the seconds to apply the recurrence to.
    :param cache:
        If given, it must be a boolean value specifying to enable or disable
        caching of results. If you will use the same rrule instance multiple
        times, enabling caching will improve the performance considerably.
     """


class rruleset(rrulebase):
    """ The rruleset type allows more complex recurrence setups, mixing
    multiple rules, dates, exclusion rules, and exclusion dates. The type
    constructor takes the following keyword arguments:

    :param cache: If True, caching of results will be enabled, improving
                  performance of multiple queries considerably. """
'''

LOGRUS = {
    "entry.go": LOGRUS_ENTRY_GO,
    "logger.go": LOGRUS_LOGGER_GO,
    "logrus.go": LOGRUS_LOGRUS_GO,
    "hooks.go": LOGRUS_HOOKS_GO,
    "formatter.go": LOGRUS_FORMATTER_GO,
    "json_formatter.go": LOGRUS_JSON_FORMATTER_GO,
    "hooks/writer/writer.go": LOGRUS_WRITER_HOOK_GO,
}


def test_a_pasted_line_naming_its_exception_class_finds_the_site_raising_that_class(tmp_path):
    files = {"dateutil/parser/_parser.py": DATEUTIL_PARSER_PY, "dateutil/tz/tz.py": DATEUTIL_TZ_PY}
    brain = indexed_files(tmp_path, files)
    first = top10(brain, "dateutil.parser._parser.ParserError: Unknown string format: next tuesday noon")[0]
    assert (first.source, first.symbol_name) == ("dateutil/parser/_parser.py", "parse")
    assert raised_class("java.lang.IllegalStateException: closed") is not None
    assert raised_class("Error: unknown option '--x'") is None and raised_class("panic: boom") is None


def test_a_structured_log_line_is_read_for_its_quoted_field_values(tmp_path):
    line = 'level=info msg=started logrus_error="can not add field \\"handler\\""'
    assert messages_of(line)[0] == 'can not add field "handler"'
    json_line = '{"level":"error","msg":"request failed","error":"connection reset by peer"}'
    assert messages_of(json_line)[0] == "connection reset by peer"
    assert messages_of("Error: unknown option '--x'") == ("unknown option '--x'", "Error: unknown option '--x'")
    brain = indexed_files(tmp_path, LOGRUS)
    first = top10(brain, line)[0]
    assert (first.source, first.parent_symbol, first.symbol_name) == ("entry.go", "Entry", "WithFields")


def test_a_plural_of_the_name_and_a_kind_word_are_a_relation_questions_scaffolding(tmp_path):
    intent = analyse("which formatters implement the Formatter interface")
    assert (intent.label, intent.names) == ("implementations", ("Formatter",))
    assert analyse("which handlers extend Handler").label == "subclasses"
    brain = indexed_files(tmp_path, LOGRUS)
    found = [r.symbol_name for r in top10(brain, "which formatters implement the Formatter interface")[:3]]
    assert "JSONFormatter" in found


def test_a_default_given_as_an_enum_constant_is_the_default(tmp_path):
    assert _names_value("InfoLevel", "Level") and _names_value("logging.INFO", "level")
    assert _names_value("LogLevel.Info", "Level") and _names_value("5.0", "timeout")
    assert not _names_value("Level", "level") and not _names_value("React.ReactNode", "children")
    brain = indexed_files(tmp_path, LOGRUS)
    first = top10(brain, "what is the default log level")[0]
    assert (first.source, first.symbol_name) == ("logger.go", "New")
    assert "Level:        InfoLevel," in first.text


def test_a_parameter_written_with_its_value_finds_its_doc_entry(tmp_path):
    assert analyse("what does cache=True do on an rrule").code_names == ("cache",)
    brain = indexed_files(tmp_path, {"dateutil/rrule.py": DATEUTIL_RRULE_PY})
    first = top10(brain, "what does cache=True do on an rrule")[0]
    assert first.symbol_name == "rrule" and ":param cache:" in first.text
