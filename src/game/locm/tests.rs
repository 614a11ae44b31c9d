//! Unit tests of the LOCM rules: item and combat arithmetic, runes, draw, mana, the draft, and the Game contract.
