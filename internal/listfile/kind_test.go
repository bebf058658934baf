package listfile

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

func TestKeys(t *testing.T) {
	tests := []struct {
		kind Kind
		in   string
		want string // "" with err: an error starting with err
		err  string
	}{
		// company: case, white space, punctuation, legal forms
		{Company, "  ACME   GmbH ", "acme", ""},
		{Company, "Acme, Inc.", "acme", ""},
		{Company, "ACME INC", "acme", ""},
		{Company, "Acme Holding GmbH & Co. KG", "acme holding", ""},
		{Company, "Acme GmbH&Co.KG", "acme", ""},
		{Company, "Banco Ejemplo, S.A. de C.V.", "banco ejemplo", ""},
		{Company, "Acme S.à r.l.", "acme", ""},
		{Company, "Acme Sp. z o.o.", "acme", ""},
		{Company, "Acme spol. s r.o.", "acme", ""},
		{Company, "Acme UG (haftungsbeschränkt)", "acme", ""},
		{Company, "Acme AB (publ)", "acme", ""},
		{Company, "Acme Pvt. Ltd.", "acme", ""},
		{Company, "Acme Co., Ltd.", "acme", ""},
		{Company, "Acme A/S", "acme", ""},
		{Company, "Acme S.p.A.", "acme", ""},
		{Company, "Acme e.V.", "acme", ""},
		{Company, "The Coca-Cola Company", "coca cola", ""},
		{Company, "The The The The The 0", "0", ""}, // every leading "the" (FuzzKeys found five kept one)
		{Company, "The The", "the", ""},
		{Company, "Coca Cola", "coca cola", ""},
		{Company, "McDonald’s Corporation", "mcdonalds", ""},
		{Company, "Müller GmbH", "müller", ""},
		{Company, "Mu\u0308ller GmbH", "müller", ""}, // decomposed ü (a Mac's files)
		{Company, "ＡＣＭＥ ＧｍｂＨ", "acme", ""},           // full-width letters
		{Company, "Procter & Gamble", "procter & gamble", ""},
		{Company, "AG", "ag", ""},      // never stripped to nothing
		{Company, "The", "the", ""},    // nor a lone "the"
		{Company, "SE & Co", "se", ""}, // "& co" goes, "se" stays: it is the name
		{Company, "Atlas Copco", "atlas copco", ""},
		{Company, "J. P. Morgan", "jp morgan", ""},
		{Company, "JP Morgan Chase & Co.", "jp morgan chase", ""},
		{Company, "Amazon.com, Inc.", "amazon com", ""},
		{Company, "Deutsche Bank AG", "deutsche bank", ""},
		// legal forms spelled out, as registers and CRMs write them
		{Company, "Deutsche Bank Aktiengesellschaft", "deutsche bank", ""},
		{Company, "Acme Gesellschaft mit beschränkter Haftung", "acme", ""},
		{Company, "Acme Gesellschaft mit beschraenkter Haftung", "acme", ""},
		{Company, "Acme Kommanditgesellschaft auf Aktien", "acme", ""},
		{Company, "Acme Holding GmbH & Co. Kommanditgesellschaft", "acme holding", ""},
		{Company, "Acme Limited", "acme", ""},
		{Company, "Acme Private Limited", "acme", ""},
		{Company, "Acme Public Limited Company", "acme", ""},
		{Company, "Acme Limited Liability Company", "acme", ""},
		{Company, "Acme Incorporated", "acme", ""},
		{Company, "Acme Corporation", "acme", ""},
		{Company, "Acme Société Anonyme", "acme", ""},
		{Company, "Acme Società per Azioni", "acme", ""},
		{Company, "Acme Sociedad Anónima", "acme", ""},
		{Company, "Acme Besloten Vennootschap", "acme", ""},
		{Company, "Acme Aktiebolag", "acme", ""},
		{Company, "Acme Spółka z ograniczoną odpowiedzialnością", "acme", ""},
		{Company, "Aktiengesellschaft", "aktiengesellschaft", ""}, // never stripped to nothing
		// domain: forms, www. and sub-domains, public suffixes, IDN
		{Domain, "acme.de", "acme.de", ""},
		{Domain, " WWW.Acme.DE. ", "acme.de", ""},
		{Domain, "mail.acme.de", "acme.de", ""},
		{Domain, "https://www.acme.de:443/about?x=1", "acme.de", ""},
		{Domain, "info@sales.acme.de", "acme.de", ""},
		{Domain, "shop.acme.co.uk", "acme.co.uk", ""},
		{Domain, "acme.github.io", "acme.github.io", ""},
		{Domain, "müller.de", "xn--mller-kva.de", ""},
		{Domain, "XN--MLLER-KVA.DE", "xn--mller-kva.de", ""},
		{Domain, "co.uk", "", `"co.uk" is a public suffix`},
		{Domain, "de", "", "expected a domain such as acme.de"},
		{Domain, "acme de", "", "expected a domain such as acme.de"},
		{Domain, "n/a", "", "expected a domain such as acme.de"},
		// email
		{Email, " Max.Mustermann@ACME.de ", "max.mustermann@acme.de", ""},
		{Email, "mailto:max@acme.de", "max@acme.de", ""},
		{Email, "Max Mustermann <Max@Acme.de>", "max@acme.de", ""},
		{Email, "max+news@müller.de", "max+news@xn--mller-kva.de", ""},
		{Email, "max@", "", "expected an e-mail address"},
		{Email, "max", "", "expected an e-mail address"},
		{Email, "max@acme", "", "expected an e-mail address"},
		{Email, "a@b.de; c@d.de", "", "expected an e-mail address"},
		// profile URLs: forms to page names
		{ProfileURL, "https://network.example/profile/Max_Mustermann", "max_mustermann", ""},
		{ProfileURL, "http://www.network.example/profile/Max_Mustermann/", "max_mustermann", ""},
		{ProfileURL, "www.network.example/profile/Max_Mustermann?sc_o=da980_e#top", "max_mustermann", ""},
		{ProfileURL, "//network.example/profile/Max_Mustermann", "max_mustermann", ""},
		{ProfileURL, "HTTPS://DE.NETWORK.EXAMPLE/de/profile/Max_Mustermann/cv", "max_mustermann", ""},
		{ProfileURL, "https://network.example/in/max-mustermann-4a1b/de", "max-mustermann-4a1b", ""},
		{ProfileURL, "https://network.example/Max_Mustermann/en-US", "max_mustermann", ""},
		{ProfileURL, "https://network.example/profile/J%C3%BCrgen_M%C3%BCller", "jürgen_müller", ""},
		{ProfileURL, "Max_Mustermann", "", "expected a profile URL"},
		{ProfileURL, "https://network.example/", "", "expected a profile URL"},
		{ProfileURL, "ftp://network.example/profile/Max", "", "expected a profile URL"},
		// page names (a profile URL is read as its page name)
		{PageName, " Max_Mustermann ", "max_mustermann", ""},
		{PageName, "https://network.example/profile/Max_Mustermann", "max_mustermann", ""},
		{PageName, "Max Mustermann", "", "expected a page name such as Max_Mustermann (no spaces)"},
		{PageName, "profile/Max", "", "expected a page name such as Max_Mustermann or a profile URL"},
		// network IDs
		{NetworkID, " 12345678.A1B2C3 ", "12345678.a1b2c3", ""},
		{NetworkID, "12345678", "", "expected a network ID"},
		{NetworkID, "abc.123", "", "expected a network ID"},
		// empty values have no key, of any kind
		{Company, "  ", "", ""},
		{NetworkID, "\t", "", ""},
	}
	for _, tt := range tests {
		got, err := tt.kind.Key(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.err)):
			t.Errorf("%s %q: error %v, want %q", tt.kind, tt.in, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("%s %q: %v", tt.kind, tt.in, err)
		case got != tt.want:
			t.Errorf("%s %q = %q, want %q", tt.kind, tt.in, got, tt.want)
		}
		// A key is its own key: normalising twice changes nothing.
		if err == nil && got != "" && tt.kind != ProfileURL {
			again, err := tt.kind.Key(got)
			if err != nil || again != got {
				t.Errorf("%s %q: key %q is not stable: %q %v", tt.kind, tt.in, got, again, err)
			}
		}
	}
}

func TestEveryLegalFormIsStripped(t *testing.T) {
	for _, f := range LegalForms {
		if got := CompanyKey("Acme " + f); got != "acme" {
			t.Errorf("Acme %s = %q", f, got)
		}
		if CompanyKey(f) == "" {
			t.Errorf("%q alone was stripped to nothing", f)
		}
		if words := companyWords(f); strings.Join(words, " ") != f {
			t.Errorf("legal form %q is not written as CompanyKey's words %q", f, words)
		}
	}
}

func TestKindNames(t *testing.T) {
	for _, n := range KindNames() {
		k, ok := ParseKind(n)
		if !ok || k.String() != n {
			t.Errorf("%s: %v %v", n, k, ok)
		}
	}
	if _, ok := ParseKind("phone"); ok {
		t.Error("phone is a kind")
	}
	if !ProfileURL.Identity() || !PageName.Identity() || !NetworkID.Identity() || Company.Identity() || Email.Identity() || Domain.Identity() {
		t.Error("Identity")
	}
}

func TestKeySet(t *testing.T) {
	tab, err := Read(fstest.MapFS{"d.csv": {Data: []byte("Domain\nwww.acme.de\n\nmail.beta.co.uk\n\"  \"\nACME.de\n")}}, "d.csv", "d.csv", []string{"Domain"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := KeySet(tab, 0, Domain)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2 || s.Kind() != Domain {
		t.Errorf("len %d", s.Len())
	}
	for v, want := range map[string]bool{"acme.de": true, "https://sales.acme.de": true, "beta.co.uk": true, "co.uk": false, "acme.com": false, "": false} {
		if s.Has(v) != want {
			t.Errorf("Has(%q) = %v", v, !want)
		}
	}
	_, err = Read(fstest.MapFS{"d.csv": {Data: []byte("Domain\nacme.de\nn/a\nco.uk\n")}}, "d.csv", "d.csv", []string{"Domain"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bad, _ := Read(fstest.MapFS{"d.csv": {Data: []byte("Domain\nacme.de\nn/a\nco.uk\n")}}, "d.csv", "d.csv", []string{"Domain"}, Options{})
	_, err = KeySet(bad, 0, Domain)
	want := `d.csv:3: column "Domain": expected a domain such as acme.de, got "n/a"; correct it or clear the cell` + "\n" +
		`d.csv:4: column "Domain": "co.uk" is a public suffix (like co.uk or de), under which companies register their domains: not a company's domain; correct it or clear the cell`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestLegalFormsDocumented keeps docs/configuration.md's list of legal
// forms equal to LegalForms: the rules a user reads are the rules applied.
func TestLegalFormsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var want []string
	for _, f := range LegalForms {
		want = append(want, "`"+f+"`")
	}
	if !strings.Contains(doc, strings.Join(want, ", ")+".") {
		t.Errorf("docs/configuration.md does not list the legal forms as CompanyKey strips them: %s", strings.Join(want, ", "))
	}
}
