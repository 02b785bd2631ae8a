#pragma once
// Text from a build log or a project made safe for a terminal (issue 34, case 10: `kiln diagnose`
// passed a log's OSC sequences, a window title or a clipboard write, to the terminal).
#include <string>
#include <string_view>

namespace kiln::core {

// `text` with every escape sequence a terminal would act on taken out: CSI (colours, cursor moves)
// and OSC/DCS/APC/PM strings are dropped whole; any other control byte (ESC, BEL, backspace, a
// lone CR, DEL) and the C1 controls U+0080-U+009F are shown as `\xNN` / `\u00NN`. Newlines and
// tabs stay.
std::string terminal_safe(std::string_view text);

}  // namespace kiln::core
