"""C++ read through the macros a header writes on lines of their own (field probe 5: cxxopts)."""

from __future__ import annotations

from agent_brain_lab.engine.chunking.code import analyze_code

HEADER = """\
#define LIB_NODISCARD [[nodiscard]]
#define LIB_DIAGNOSTIC_POP

namespace lib {

LIB_DIAGNOSTIC_POP

namespace exceptions {

class no_such_option : public std::exception
{
  public:
  explicit no_such_option(const std::string& option)
  : m_message("Option " + option + " does not exist")
  {
  }
};

} // namespace exceptions

class KeyValue
{
  public:
  LIB_NODISCARD
  const std::string&
  key() const
  {
    return m_key;
  }

  private:
  std::string m_key;
};

enum class Color
{
  RED,
  GREEN
};

} // namespace lib
"""


def symbols(text: str) -> dict[str, tuple[str, int, int]]:
    analysis = analyze_code("lib.hpp", text, "cpp", "code", 1500)
    return {s.qualname: (s.kind, s.start_line, s.end_line) for s in analysis.symbols}


def test_a_macro_alone_on_its_line_does_not_swallow_the_declaration_after_it():
    found = symbols(HEADER)
    # the macro above `namespace exceptions {` made the namespace and its classes one "function"
    assert found["lib.exceptions.no_such_option"][0] == "class"
    assert "lib.exceptions.no_such_option.no_such_option" in found
    # the attribute macro above a method made it a method named after its return type's `std::`
    assert found["lib.KeyValue.key"][:2] == ("method", 24)  # with its macro line, as with a comment
    assert not any(name.endswith(".std") for name in found)
    # an enumerator alone on its line is no macro: the enum keeps every line
    assert found["lib.Color"][1:] == (35, 39)


def test_the_chunks_keep_the_macro_lines():
    """The macro is read as a blank by the parser only: the chunks still hold its line."""
    analysis = analyze_code("lib.hpp", HEADER, "cpp", "code", 1500)
    held = {
        n for c in analysis.chunks for n in range(c.start_line, c.end_line + 1) if "LIB_" in HEADER.splitlines()[n - 1]
    }
    assert held == {1, 2, 6, 24}
