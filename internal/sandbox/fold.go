package sandbox

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text matching in the sandbox is case- and accent-insensitive: "munchen"
// finds "München", "CELIK" finds "Çelik". fold maps a lower-case rune to
// its plain form; runes not listed stay as they are.
var foldRunes = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'ā': "a", 'ą': "a",
	'æ': "ae", 'ç': "c", 'ć': "c", 'č': "c",
	'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ē': "e", 'ę': "e", 'ě': "e",
	'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ı': "i", 'ī': "i",
	'ñ': "n", 'ń': "n", 'ň': "n",
	'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o", 'ō': "o", 'ő': "o",
	'ù': "u", 'ú': "u", 'û': "u", 'ü': "u", 'ū': "u", 'ů': "u", 'ű': "u",
	'ý': "y", 'ÿ': "y", 'ß': "ss", 'ş': "s", 'ś': "s", 'š': "s", 'ğ': "g",
	'ž': "z", 'ź': "z", 'ż': "z", 'ł': "l", 'đ': "d", 'ř': "r", 'ť': "t",
	'\u0307': "", // combining dot above, left over from "İ"
}

// fold returns s lower-cased with Latin accents removed, for matching.
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range s {
		lr := unicode.ToLower(r)
		if rep, ok := foldRunes[lr]; ok {
			b.WriteString(rep)
		} else {
			b.WriteRune(lr)
		}
	}
	return b.String()
}

// foldOffsets folds s and returns, for every byte of the folded string, the
// offset in s of the rune it came from, plus a final entry len(s); this
// maps a match in the folded text back to the original for highlighting.
func foldOffsets(s string) (string, []int) {
	var b strings.Builder
	offs := make([]int, 0, len(s)+1)
	for i, r := range s {
		lr := unicode.ToLower(r)
		rep, ok := foldRunes[lr]
		if !ok {
			rep = string(lr)
		}
		b.WriteString(rep)
		for range len(rep) {
			offs = append(offs, i)
		}
	}
	offs = append(offs, len(s))
	return b.String(), offs
}

// highlight wraps every whole-word match of the folded terms in s with double
// asterisks, the way the service marks matched terms in raw results. It
// returns s unchanged and false when no term matches.
func highlight(s string, terms []string) (string, bool) {
	f, offs := foldOffsets(s)
	marked := make([]bool, len(s)+1) // marked[i]: byte i of s is inside a match
	any := false
	for _, t := range terms {
		if t == "" {
			continue
		}
		for from := 0; from <= len(f)-len(t); {
			j := strings.Index(f[from:], t)
			if j < 0 {
				break
			}
			if wordRuneBefore(f, from+j) || wordRuneAt(f, from+j+len(t)) {
				// Part of a longer word: not a match (see containsWord).
				_, n := utf8.DecodeRuneInString(f[from+j:])
				from += j + n
				continue
			}
			start, end := offs[from+j], offs[from+j+len(t)]
			if end == start { // a match inside one rune (ß→ss): take the rune
				_, n := utf8.DecodeRuneInString(s[start:])
				end = start + n
			}
			for k := start; k < end; k++ {
				marked[k] = true
			}
			any = true
			from += j + len(t)
		}
	}
	if !any {
		return s, false
	}
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		if marked[i] != in {
			b.WriteString("**")
			in = marked[i]
		}
		b.WriteByte(s[i])
	}
	if in {
		b.WriteString("**")
	}
	return b.String(), true
}

// asciiRunes romanise Latin letters for page names and e-mail addresses,
// German umlauts the German way.
var asciiRunes = map[rune]string{
	'ä': "ae", 'ö': "oe", 'ü': "ue", 'Ä': "Ae", 'Ö': "Oe", 'Ü': "Ue", 'ß': "ss",
	'İ': "I", 'Æ': "Ae", 'Ø': "O", 'Ł': "L",
}

// asciiFold romanises s and keeps only ASCII letters, digits and hyphens:
// "Jürgen" -> "Juergen", "O'Brien" -> "OBrien", "von Bülow" -> "vonBuelow".
func asciiFold(s string) string {
	var b strings.Builder
	for _, r := range s {
		if rep, ok := asciiRunes[r]; ok {
			b.WriteString(rep)
			continue
		}
		lr := unicode.ToLower(r)
		if rep, ok := foldRunes[lr]; ok {
			if r != lr && rep != "" {
				rep = strings.ToUpper(rep[:1]) + rep[1:]
			}
			b.WriteString(rep)
			continue
		}
		if r < utf8.RuneSelf && (r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// containsWord reports whether term occurs in text as a whole word: at the
// start of text or after a character that is no letter or digit, and
// followed by the end of text or such a character. Both are folded; a
// term may hold punctuation of its own ("hans-peter", "c++").
func containsWord(text, term string) bool {
	if term == "" {
		return true
	}
	for from := 0; from <= len(text)-len(term); {
		i := strings.Index(text[from:], term)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(term)
		if !wordRuneBefore(text, start) && !wordRuneAt(text, end) {
			return true
		}
		_, size := utf8.DecodeRuneInString(text[start:])
		from = start + size
	}
	return false
}

// wordRuneBefore reports whether the rune ending at byte i of s is a letter
// or digit.
func wordRuneBefore(s string, i int) bool {
	if i <= 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return isWordRune(r)
}

// wordRuneAt reports whether the rune starting at byte i of s is a letter
// or digit.
func wordRuneAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return isWordRune(r)
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}
