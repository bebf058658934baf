package config

import (
	"net/url"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

var settingsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "state_path"}, {Name: "profile_url_template"}, {Name: "retention"}, {Name: "name"},
}, Blocks: []hcl.BlockHeaderSchema{{Type: "backend", LabelNames: []string{"type"}}, {Type: "budget"}}}

func (l *loader) decodeSettings(blocks hcl.Blocks) {
	l.cfg.Settings.StatePath = DefaultStatePath
	for i, b := range blocks {
		if i > 0 {
			l.errorf(b.DefRange.Ptr(), "Duplicate leadsync block", "There is already a leadsync block at %s; merge the two.", shortRange(blocks[0].DefRange))
			continue
		}
		content, ds := b.Body.Content(settingsSchema)
		l.add(ds)
		l.decodeBackend(content.Blocks.OfType("backend"))
		l.decodeBudget(content.Blocks.OfType("budget"))
		if a := content.Attributes["state_path"]; a != nil {
			if s, _, astate := l.stringAttr(a, l.base, scope{}, false); astate == ok {
				if strings.TrimSpace(s) == "" {
					l.errorf(a.Expr.Range().Ptr(), "Invalid state_path", "state_path must not be empty; remove it for the default %s.", DefaultStatePath)
				} else {
					l.cfg.Settings.StatePath = s
				}
			}
		}
		if a := content.Attributes["name"]; a != nil {
			if s, _, astate := l.stringAttr(a, l.base, scope{}, false); astate == ok {
				if strings.TrimSpace(s) == "" {
					l.errorf(a.Expr.Range().Ptr(), "Invalid name", "name must not be empty; remove it to name the configuration by its folder.")
				} else {
					l.cfg.Settings.Name = strings.TrimSpace(s)
				}
			}
		}
		if d, astate := l.durationAttr(content.Attributes["retention"], l.base, scope{}); astate == ok {
			l.cfg.Settings.Retention = d
			l.retention = content.Attributes["retention"]
		}
		if a := content.Attributes["profile_url_template"]; a != nil {
			if s, _, astate := l.stringAttr(a, l.base, scope{}, false); astate == ok {
				if !strings.Contains(s, "{pageName}") {
					l.errorf(a.Expr.Range().Ptr(), "Invalid profile_url_template", "profile_url_template must contain {pageName}, which is replaced by each person's page name, like \"https://network.example/profile/{pageName}\".")
				} else if u, err := url.Parse(strings.ReplaceAll(s, "{pageName}", "x")); err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
					l.errorf(a.Expr.Range().Ptr(), "Invalid profile_url_template", "profile_url_template must be an absolute http(s) URL, like \"https://network.example/profile/{pageName}\".")
				} else {
					l.cfg.Settings.ProfileURLTemplate = s
				}
			}
		}
	}
}
