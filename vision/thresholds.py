"""The thresholds the shared readers judge by, named once, each with what it separates."""

# -- the screen ----------------------------------------------------------------------------------
# A background brighter than this (mean of its channels, 0-255) is a light theme, else a dark one.
LIGHT_THEME = 128

# -- ink and shapes ------------------------------------------------------------------------------
# Ink (0-1, of a line's or a glyph's strongest) above this is a stroke, below it background: glyphs
# are split at columns with no stroke, and a line is binarised here for tesseract.
STROKE = 0.45
# Saturation (max minus min channel, 0-255) above this is a coloured pixel (an icon, a coin, a
# badge), below it the neutral ink text is drawn in.
COLOURED = 60
# A text line's ink differs from the background by more than this (0-255) by default.
TEXT_CONTRAST = 60

# -- cells ---------------------------------------------------------------------------------------
# A cell whose strongest (smoothed) ink is under this (0-255) holds nothing drawn.
EMPTY = 12
# Ink weaker than this share of the live digits' is noise (a crossed-out digit is about a fifth
# as strong as a live one; camera or JPEG noise in an empty cell a tenth or less).
FAINTEST = 0.12
# Ink at least this share of the live digits' is a live digit; weaker (above FAINTEST) a crossed-out one.
LIVE = 0.6
# The live digits' ink a profile keeps, times this, is the least a live digit's can be taken for:
# a compressed video frame softens ink by far less, and crossed-out ink is a fifth of it.
STORED_INK_SHARE = 0.5
# A cell's own background this far (0-255, any channel) from the board's is highlighted ...
HIGHLIGHT = 18
# ... and selected when it is this much bluer than red (a hint shows in yellow: not a selection).
SELECTED_BLUE = 12

# -- digits --------------------------------------------------------------------------------------
# A template match must lead the runner-up by this much to be taken without tesseract.
MARGIN = 0.06
# Each glyph goes into tesseract's strip binarised twice, thin and bold: a small or blurred glyph
# can close a gap at one level (a 5 read as 9) and keep it at the other.
INK_LEVELS = (0.35, 0.6)
# Glyphs correlating at least this much with a group's first glyph are drawn alike (one digit).
LOOK_ALIKE = 0.88
# Two groups of glyphs correlating under this are two digits, whatever tesseract read them as (one
# digit's groups on a board correlate at 0.76 and more, even on a tiny blurred screenshot).
OTHER_SHAPE = 0.6
# A glyph correlating with another digit's look by this much more than with its own looks like
# that digit (tiny glyphs shift by a pixel and correlate loosely with their own kind).
CLEARLY_MORE_LIKE = 0.1
# A glyph must correlate with the other glyphs of its digit by this much more than with any other
# digit's glyphs on the board, or its read is unsure.
UNLIKE_MARGIN = 0.05
# Digits fewer edge widths tall than this (see ``vision.digits.sharpness``) are too soft for a
# first read to be sure of, or for templates to be learned from.
POOR_SHARPNESS = 10
# Glyphs fewer pixels high than this are matched against drawn fonts before tesseract.
TINY = 14
# A glyph read by drawn fonts must correlate this much with its digit, and lead the next by DRAWN_MARGIN.
DRAWN_SCORE = 0.5
DRAWN_MARGIN = 0.1
# Two digits' learned templates correlating this much are one glyph filed under two digits (the
# most alike digits of one font, 3 and 8 or 5 and 6, correlate at about 0.87).
TEMPLATES_ALIKE = 0.95
# A learned template correlates with the same digit drawn in a phone font (vision.fontmatch) at
# least this much (0.43 at worst, a 5 px badge; a template of noise at about 0.2, rarely over 0.35) ...
DRAWN_LIKENESS = 0.35
# ... and one correlating with another digit's drawing by this much more than with its own digit's
# was filed under the wrong digit (a right one leads by 0.06 and more; a 5 learned off a JPEG of
# quality 30 trails the drawn 6 by 0.01; a 5 and a 6 swapped trail by 0.05, a 3 and an 8 by 0.1).
MISFILED = 0.03
# Glyphs shorter than this share of a number's tallest are separators (a thousands comma), not digits.
SEPARATOR = 0.6
