package config

import (
	"net/url"
	"path"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/leadsync/leadsync/internal/kind"
)

var profileSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "for_each"}, {Name: "count"}, {Name: "page_name"}, {Name: "profile_url"}, {Name: "refresh"}, {Name: "label"},
}}

func (l *loader) decodeProfile(b *hcl.Block) {
	if l.skip[b] {
		return
	}
	content, meant := l.content(b, profileSchema, "A profile block")
	info := l.blocks["profile."+b.Labels[0]]
	at := content.Attributes
	l.cfg.blockAddrs = append(l.cfg.blockAddrs, l.blockAddr(kind.Profile, b.Labels[0], ""))
	for _, in := range l.expand(b, content, info) {
		p := &Profile{Address: in.addr, Addr: l.blockAddr(kind.Profile, b.Labels[0], in.akey), Block: l.prefix + "profile." + b.Labels[0], Name: b.Labels[0], Module: l.modulePath(), DeclRange: b.DefRange}
		pn, _, pnSt := l.stringAttr(at["page_name"], in.ctx, in.sc, true)
		pu, _, puSt := l.stringAttr(at["profile_url"], in.ctx, in.sc, true)
		if pnSt == ok && !l.valueLength(at["page_name"], pn, MaxPageName) {
			pnSt = bad
		}
		if puSt == ok && !l.valueLength(at["profile_url"], pu, MaxURLValue) {
			puSt = bad
		}
		if pnSt == ok {
			switch {
			case strings.TrimSpace(pn) == "":
				l.errorf(at["page_name"].Expr.Range().Ptr(), "Empty page_name", "page_name must not be empty; it is the short profile name, like \"Max_Mustermann\".")
				pnSt = bad
			case strings.ContainsAny(pn, "/ \t\n?#"):
				l.errorf(at["page_name"].Expr.Range().Ptr(), "Invalid page_name", "page_name is the short profile name, like \"Max_Mustermann\", without slashes or spaces; for a full address use profile_url.")
				pnSt = bad
			default:
				p.Request.PageName, p.PageName = pn, pn
			}
		}
		if puSt == ok {
			u, err := url.Parse(pu)
			name := ""
			if err == nil {
				name = path.Base(strings.TrimSuffix(u.Path, "/"))
			}
			if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || name == "" || name == "." || name == "/" {
				l.errorf(at["profile_url"].Expr.Range().Ptr(), "Invalid profile_url", "profile_url must be the absolute http(s) address of a member profile, like \"https://network.example/profile/Max_Mustermann\".")
				puSt = bad
			} else {
				p.Request.ProfileURL, p.PageName = pu, name
			}
		}
		switch {
		case pnSt == absent && puSt == absent && (meant["page_name"] || meant["profile_url"]):
			// Misspelt: that error is the one to fix.
		case pnSt == absent && puSt == absent:
			l.errorf(b.DefRange.Ptr(), "Missing page_name or profile_url", "A profile names one person: page_name = \"Max_Mustermann\" or profile_url = \"https://...\".")
		case pnSt == ok && puSt == ok:
			l.errorf(at["profile_url"].Expr.Range().Ptr(), "Both page_name and profile_url", "A profile takes exactly one of page_name and profile_url; remove one.")
			p.Request.ProfileURL = ""
			p.PageName = pn
		}
		if d, astate := l.durationAttr(at["refresh"], in.ctx, in.sc); astate == ok {
			p.Refresh = d
		}
		p.Label = l.label(at["label"], in)
		l.cfg.Profiles = append(l.cfg.Profiles, p)
	}
}
