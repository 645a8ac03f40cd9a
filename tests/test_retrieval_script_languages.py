"""Field probe 4 (PHP, Lua, Bash) on a real index: the template spelling most of a pasted message is its
source, a class constant is a declared member, a shell message written to stderr is an error site."""

from __future__ import annotations

from workspace_fixture import indexed_files, top10

from agent_brain_lab.engine.retrieval.evidence import _literals, message_evidence, message_match
from agent_brain_lab.engine.tokenizer import WORD

INPUT_PHP = """<?php

namespace Console\\\\Input;

abstract class Input
{
    /**
     * Returns the option value for a given option name: the option does not exist unless the
     * definition has it; an option that does not exist throws. Check that the option exists first.
     */
    public function getOption(string $name)
    {
        // the option does not exist: say which option does not exist
        if (!$this->definition->hasOption($name)) {
            throw new InvalidArgumentException(sprintf('The "%s" option does not exist.', $name));
        }

        return $this->options[$name];
    }
}
"""

ARGV_PHP = """<?php

namespace Console\\\\Input;

class ArgvInput extends Input
{
    private function addShortOption(string $shortcut, $value)
    {
        if (!$this->definition->hasShortcut($shortcut)) {
            throw new RuntimeException(sprintf('The "-%s" option does not exist.', $shortcut));
        }

        $this->addLongOption($this->definition->getOptionForShortcut($shortcut)->getName(), $value);
    }

    private function addLongOption(string $name, $value)
    {
        if (!$this->definition->hasOption($name)) {
            throw new RuntimeException(sprintf('The "--%s" option does not exist.', $name));
        }
        $option = $this->definition->getOption($name);
        $this->options[$name] = $value;
    }
}
"""


def test_the_template_spelling_most_of_a_pasted_message_comes_first(tmp_path):
    """Three templates make ``The "--forse" option does not exist.``: ``"%s"`` and ``"-%s"`` with the
    dashes in their hole, ``"--%s"`` spelling them. All cover the message's words; the one whose holes
    took the fewest characters made it, though the others' chunks say the message's words more."""
    brain = indexed_files(tmp_path, {"Input/Input.php": INPUT_PHP, "Input/ArgvInput.php": ARGV_PHP})
    query = 'The "--forse" option does not exist.'
    words = len(WORD.findall(query))
    spelled = message_evidence(query, words, ARGV_PHP.split("private function addLongOption")[1], code=True)
    dashes_held = message_evidence(query, words, INPUT_PHP, code=True)
    assert (spelled.cover, spelled.raises, spelled.held) == (1.0, True, 5)
    assert (dashes_held.cover, dashes_held.raises, dashes_held.held) == (1.0, True, 7)
    assert message_match(query, words, INPUT_PHP, code=True) == (1.0, True)
    first = top10(brain, query)[0]
    assert (first.source, first.symbol_name) == ("Input/ArgvInput.php", "addLongOption")


OPTION_PHP = """<?php

namespace Console\\\\Input;

/**
 * Represents a command line option.
 */
class InputOption
{
    /**
     * Do not accept input for the option (e.g. --yell). This is the default behavior of options.
     */
    public const VALUE_NONE = 1;

    /**
     * The option may have either positive or negative value (e.g. --ansi or --no-ansi).
     */
    public const VALUE_NEGATABLE = 16;

    private $mode;

    public function __construct(string $name, ?int $mode = null)
    {
        if (($mode & self::VALUE_NEGATABLE) && ($mode & self::VALUE_NONE) === 0) {
            throw new InvalidArgumentException('VALUE_NEGATABLE if the option also accepts a value.');
        }
        $this->mode = $mode;
    }

    public function isNegatable(): bool
    {
        return self::VALUE_NEGATABLE === (self::VALUE_NEGATABLE & $this->mode);
    }
}
"""

DEFINITION_PHP = """<?php

namespace Console\\\\Input;

class InputDefinition
{
    public function addOption(InputOption $option)
    {
        // VALUE_NEGATABLE options get a --no- twin
        if ($option->isNegatable()) {
            $negatedName = 'no-'.$option->getName();
            $this->negations[$negatedName] = $option->getName();
        }
    }
}
"""


def test_a_question_about_what_a_class_constant_means_puts_its_class_first(tmp_path):
    """``public const VALUE_NEGATABLE = 16;`` (PHP; Java's ``static final int``, C#'s ``const int``)
    declares a member of its class with the comment saying what it means; the methods testing it
    say its name more often."""
    brain = indexed_files(tmp_path, {"Input/InputOption.php": OPTION_PHP, "Input/InputDefinition.php": DEFINITION_PHP})
    first = top10(brain, "what does VALUE_NEGATABLE mean for an option")[0]
    assert (first.source, first.symbol_name) == ("Input/InputOption.php", "InputOption")


def test_a_shell_message_written_to_stderr_is_an_error_site():
    """bash reports an error by writing it to stderr (``printf "...\\n" "$slug" >&2``, ``echo "...$slug..."
    1>&2``): that literal is raised, as a ``throw`` is, one written to stdout or into a variable is not.
    Its ``\\n`` is the line's end and its ``$slug`` a value: the printed message matches it."""
    message = "Could not find library 'bats-support' relative to test file or in BATS_LIB_PATH"
    words = len(WORD.findall(message))
    printf = 'printf "Could not find library \'%s\' relative to test file or in BATS_LIB_PATH\\n" "$slug"'
    echo = "echo \"Could not find library '$slug' relative to test file or in BATS_LIB_PATH\""
    assert message_match(message, words, f"  {printf} >&2\n  return 1\n", code=True) == (1.0, True)
    assert message_match(message, words, f"  {echo} 1>&2\n", code=True) == (1.0, True)
    assert message_match(message, words, f'  {echo} 2>&1 | tee "$output_file"\n', code=True) == (1.0, False)
    assert message_match(message, words, f"  printf -v msg {printf[7:]}\n", code=True) == (1.0, False)


COMMAND_PHP = """<?php

namespace Console\\\\Command;

class Command
{
    public function __construct(?string $name = null)
    {
        $this->configure();
    }

    protected function configure()
    {
    }

    public function getName()
    {
        return $this->name;
    }
}
"""

LIST_PHP = """<?php

namespace Console\\\\Command;

class ListCommand extends Command
{
    public function __construct()
    {
        parent::__construct('list');
    }

    public function run()
    {
        $name = $this->getName();
        return static::describe($name);
    }

    public static function describe(string $name)
    {
        return $name;
    }
}
"""

OPTION_NAME_PHP = """<?php

namespace Console\\\\Input;

class InputOption
{
    public function __construct(string $name)
    {
    }

    public function getName()
    {
        return $this->name;
    }

    public static function describe(string $name)
    {
        return $name;
    }
}
"""


def test_php_calls_on_this_static_and_parent_resolve_in_the_class_and_its_base(tmp_path):
    """``$this->getName()`` in a subclass calls its base's method, ``static::describe()`` its own
    class's, ``parent::__construct()`` the base's constructor, though other classes define methods of
    the same names (``$this``, ``static`` and ``parent`` were no receiver the graph knew: no edge)."""
    brain = indexed_files(
        tmp_path,
        {
            "Command/Command.php": COMMAND_PHP,
            "Command/ListCommand.php": LIST_PHP,
            "Input/InputOption.php": OPTION_NAME_PHP,
        },
    )
    graph = brain._reader.view().snapshot.graph
    assert graph is not None

    def calls(node: str) -> set[str]:
        return {e.target for e in graph.out_edges(node) if e.relation == "calls"}

    assert calls("Command/ListCommand.php::ListCommand.run") >= {
        "Command/Command.php::Command.getName",
        "Command/ListCommand.php::ListCommand.describe",
    }
    assert "Command/Command.php::Command.__construct" in calls("Command/ListCommand.php::ListCommand.__construct")
    assert "Command/Command.php::Command.configure" in calls("Command/Command.php::Command.__construct")


def test_an_error_returned_after_nil_is_an_error_site():
    """Lua reports an error as ``return nil, "message"`` (Go as ``return nil, errors.New(...)``): that
    literal is the message's error site; one the function returns as a value is not."""
    message = "cannot have functions in table definition"
    words = len(WORD.findall(message))
    site = 'if t == "keyword" then\n    return nil, "cannot have functions in table definition"\nend\n'
    value = 'local hint = "cannot have functions in table definition"\nreturn hint\n'
    assert message_match(message, words, site, code=True) == (1.0, True)
    assert message_match(message, words, value, code=True) == (1.0, False)


def test_a_value_lua_or_php_concatenates_into_a_message_is_a_hole():
    """Lua joins a value into a message with ``..`` (``"assign to undeclared global '"..n.."'"``), PHP
    with ``.`` (``'command "'.$name.'".'``, ``'level "' . $level . '"'``): the value is a hole, as
    between ``+``, so the literal makes the whole message; a call on a literal (``"...".format(n)``)
    joins nothing."""
    cases = [
        ("assign to undeclared global 'conut'", """error("assign to undeclared global '"..n.."'", 2)"""),
        ("unrecognized parameter: x", 'if not ps then lapp.error("unrecognized parameter: "..parm) end'),
        (
            'Could not find command "biuld".',
            """throw new NotFound('Could not find command "'.$name.'".');""",
        ),
        ('The log level "loud" does not exist.', """throw new X('The log level "' . $level . '" does not exist.');"""),
    ]
    for message, code in cases:
        assert message_match(message, len(WORD.findall(message)), code, code=True) == (1.0, True), code
    assert _literals('raise X("Exceeded {} redirects.".format(n))')[0][1] == "Exceeded {} redirects."
