package listfile

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// LegalForms lists the legal forms CompanyKey strips from the end of a
// company's name, written as they are after the other rules (lower case,
// single letters joined, "&" a word of its own): "S.A." is "sa", "Sp. z
// o.o." is "sp zoo", "GmbH & Co. KG" is stripped as "kg", then "& co",
// then "gmbh". The list
// is the documentation's too (docs/configuration.md, "How list values are
// matched"; a test keeps the two equal).
var LegalForms = []string{
	// German-speaking countries
	"gmbh", "ggmbh", "mbh", "gesmbh", "ag", "kg", "kgaa", "ohg", "gbr", "ug", "ug haftungsbeschränkt",
	"ev", "eg", "ek", "partg", "partgmbb", "se", "& co", "und co", "& cie",
	// English-speaking countries
	"inc", "incorporated", "corp", "corporation", "co", "company", "llc", "pllc", "llp", "lllp", "lp",
	"ltd", "limited", "plc", "na", "co ltd", "pty ltd", "pvt ltd", "pte ltd", "private limited", "and co",
	// France, Belgium, Luxembourg, Switzerland
	"sa", "sas", "sasu", "sarl", "sàrl", "eurl", "sca", "snc", "sci", "scs",
	// Italy, Spain, Portugal, Latin America
	"spa", "srl", "srls", "sapa", "sl", "slu", "sau", "sll", "ltda", "lda", "s de rl", "sa de cv", "s de rl de cv",
	// Benelux, Nordic countries
	"bv", "nv", "vof", "bvba", "ab", "ab publ", "as", "asa", "aps", "oy", "oyj", "hf", "ehf",
	// Central and Eastern Europe, Turkey
	"sp zoo", "spzoo", "spk", "sro", "spol sro", "kft", "zrt", "nyrt", "bt", "doo", "dd", "ad", "ood", "eood",
	"aş", "ltd şti", "şti",
	// Asia and Pacific
	"kk", "sdn bhd", "bhd", "tbk", "pty",
	// Spelled out, as registers and CRM exports write them (German with
	// ae for ä too, as files without umlauts have it)
	"aktiengesellschaft", "gesellschaft mit beschränkter haftung", "gesellschaft mit beschraenkter haftung",
	"gemeinnützige gesellschaft mit beschränkter haftung", "kommanditgesellschaft", "kommanditgesellschaft auf aktien",
	"offene handelsgesellschaft", "gesellschaft bürgerlichen rechts", "unternehmergesellschaft",
	"eingetragener verein", "eingetragene genossenschaft", "eingetragener kaufmann", "eingetragene kauffrau",
	"partnerschaftsgesellschaft", "societas europaea",
	"limited liability company", "limited liability partnership", "limited partnership",
	"public limited company", "private limited company", "proprietary limited",
	"société anonyme", "société par actions simplifiée", "société à responsabilité limitée",
	"société en nom collectif", "société civile immobilière",
	"società per azioni", "società a responsabilità limitata", "sociedad anónima", "sociedad limitada",
	"sociedad de responsabilidad limitada", "sociedade anónima", "sociedade limitada",
	"besloten vennootschap", "naamloze vennootschap", "aktiebolag", "aksjeselskap", "aktieselskab",
	"anpartsselskab", "osakeyhtiö", "spółka z ograniczoną odpowiedzialnością", "spółka akcyjna",
	"kabushiki kaisha", "anonim şirketi",
}

// legalForms is LegalForms as word lists by their last word, longest
// first, so that "pvt ltd" is stripped as one form rather than as "ltd"
// leaving "pvt".
var legalForms = func() map[string][][]string {
	out := map[string][][]string{}
	for _, f := range LegalForms {
		w := strings.Fields(f)
		out[w[len(w)-1]] = append(out[w[len(w)-1]], w)
	}
	for _, forms := range out {
		sort.SliceStable(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	}
	return out
}()

// CompanyKey normalises a company's name:
//
//  1. Unicode compatibility form (NFKC) and lower case: "ＡＣＭＥ" and
//     "Acme" are "acme"; letters keep their accents ("müller" is not
//     "muller" nor "mueller").
//  2. Apostrophes are dropped ("McDonald's" -> "mcdonalds"); "&" is a
//     word of its own; every other character that is not a letter, digit
//     or mark (dots, slashes, hyphens, commas, brackets, white space)
//     separates words ("Coca-Cola" -> "coca cola", "Co.KG" -> "co kg").
//     Then a run of single letters is one word: "S.A." -> "sa",
//     "A/S" -> "as", "J. P. Morgan" -> "jp morgan", as "JP Morgan" is.
//  3. Leading "the"s are dropped (a name is never dropped to nothing:
//     "The The" is "the").
//  4. Legal forms (LegalForms) are stripped from the end, again and again
//     ("Acme Holding GmbH & Co. KG" -> "acme holding"), as are words "&"
//     left at the end; a name is never stripped to nothing ("AG" stays
//     "ag").
//  5. The words are joined by one space.
func CompanyKey(v string) string {
	// The rules are applied again until the key is its own key: a letter
	// lower-cased may compose anew ("T" and U+0308 have no precomposed
	// form, "t" and U+0308 have), and a "the" dropped may uncover a legal
	// form or another "the" after composing. Two passes settle every name
	// met so far; four are allowed.
	key := companyKeyOnce(v)
	for range 3 {
		again := companyKeyOnce(key)
		if again == key {
			break
		}
		key = again
	}
	return key
}

// companyKeyOnce applies CompanyKey's rules once.
func companyKeyOnce(v string) string {
	// A byte that is no UTF-8 separates words, as any other character
	// that is neither letter nor digit does; made a space before the
	// normalisation, it cannot keep the letters after it from being
	// normalised.
	words := companyWords(norm.NFKC.String(strings.ToValidUTF8(v, " ")))
	for len(words) > 1 && words[0] == "the" {
		words = words[1:]
	}
	for stripped := len(words) > 1; stripped; {
		stripped = false
		for len(words) > 1 && words[len(words)-1] == "&" {
			words = words[:len(words)-1]
			stripped = true
		}
		for _, f := range legalForms[words[len(words)-1]] {
			if len(words) > len(f) && hasSuffix(words, f) {
				words = words[:len(words)-len(f)]
				stripped = true
				break
			}
		}
	}
	return strings.Join(words, " ")
}

// companyWords splits a name into lower-case words by the rules of
// CompanyKey (step 2).
func companyWords(s string) []string {
	// The words are written into one buffer, separated by spaces, and cut
	// out of the one string it makes: three allocations a name, not one a
	// word.
	buf := make([]byte, 0, len(s)+2)
	for _, r := range s {
		switch {
		case r == '\'' || r == '’' || r == '`' || r == '´':
		case r == '&':
			buf = append(buf, " & "...)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		default:
			buf = append(buf, ' ')
		}
	}
	return joinLetters(strings.Fields(string(buf)))
}

// joinLetters joins each run of two or more one-letter words into one.
func joinLetters(words []string) []string {
	out := words[:0]
	for i := 0; i < len(words); {
		j := i
		for j < len(words) && singleLetter(words[j]) {
			j++
		}
		if j-i >= 2 {
			out = append(out, strings.Join(words[i:j], ""))
			i = j
			continue
		}
		out = append(out, words[i])
		i++
	}
	return out
}

// singleLetter reports whether w is one letter (with its marks).
func singleLetter(w string) bool {
	for i, r := range w {
		if i == 0 && !unicode.IsLetter(r) || i > 0 && !unicode.IsMark(r) {
			return false
		}
	}
	return w != ""
}

func hasSuffix(words, suffix []string) bool {
	off := len(words) - len(suffix)
	for i, w := range suffix {
		if words[off+i] != w {
			return false
		}
	}
	return true
}
