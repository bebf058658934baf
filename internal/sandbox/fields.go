package sandbox

import "github.com/leadsync/leadsync/internal/api"

// Possible values of the array filters, exactly as spec 2.1 lists them.
var (
	disciplines = []string{
		"Analysis and statistics", "Administration", "Consulting", "Customer service",
		"Purchasing, materials management & logistics", "Finance, accounting & controlling",
		"Teaching, R&D", "Health, medical and social", "Graphic design and architecture",
		"Engineering and technical", "IT and software development",
		"Management and corporate development", "Marketing and advertising", "HR",
		"PR and journalism", "Production and manufacturing", "Product management",
		"Project management", "Process planning & QA", "Legal", "Sales and commerce", "Other",
	}
	industries = []string{
		"Architecture and planning", "Automotive and vehicle manufacturing",
		"Banking and financial services", "Consulting", "Energy, water and environment",
		"Education and science", "Health and social", "Real Estate",
		"Industry and mechanical engineering", "Internet and IT", "Consumer goods and trade",
		"Art, culture and sport", "Marketing, PR and design", "Media and publishing",
		"Civil service, associations and institutions", "HR services", "Medical services",
		"Telecommunication", "Tourism and food service", "Transport and logistics",
		"Insurance", "Auditing, tax and law", "Other industries",
	}
	levels = []string{
		"Professional/Experienced", "Manager", "Executive", "Senior", "Entry", "Student/Intern",
	}
	employmentTypes = []string{
		"Full time employee", "Self employed", "Owner", "Part time employee", "Partner",
		"Intern", "Volunteer", "Board member", "Recruiter", "Civil servant",
	}
	languages = []string{
		"English", "German", "French", "Spanish", "Italian", "Russian", "Turkish", "Chinese",
		"Arabic", "Dutch",
	}
	countries = []string{
		"Austria", "China", "Germany", "India", "Italy", "Spain", "Switzerland", "Turkey",
		"United Kingdom", "United States of America",
	}
)

// Search parameter names of spec 2.1, and the two that are not filters.
const (
	paramKeywords        = "keywords"
	paramSearchURL       = "searchUrl"
	paramRaw             = "raw"
	paramName            = "name"
	paramCompany         = "company"
	paramTitle           = "title"
	paramPreviousCompany = "previousCompany"
	paramPreviousTitle   = "previousTitle"
	paramHaves           = "haves"
	paramCity            = "city"
	paramEducation       = "education"
	paramDiscipline      = "disciplineFilter"
	paramIndustry        = "industryFilter"
	paramLevel           = "levelFilter"
	paramStatus          = "currentStatusCodeFilter"
	paramLanguage        = "languageFilter"
	paramCountry         = "countryFilter"
)

// Fields returns the searchable-field list of spec 2.1, in the spec's order,
// exactly as the fields operation answers it. The result is a fresh copy.
func Fields() []api.Field {
	text := func(label, param string) api.Field {
		return api.Field{FieldName: label, SearchParameter: param, Type: api.FieldText}
	}
	array := func(label, param string, values []string) api.Field {
		return api.Field{FieldName: label, SearchParameter: param, Type: api.FieldArray,
			PossibleValues: append([]string(nil), values...)}
	}
	return []api.Field{
		text("Search", paramKeywords),
		text("Name", paramName),
		text("Company", paramCompany),
		text("Position", paramTitle),
		text("Company (previous)", paramPreviousCompany),
		text("Position (previous)", paramPreviousTitle),
		text("Skills", paramHaves),
		text("City", paramCity),
		text("University", paramEducation),
		array("Discipline", paramDiscipline, disciplines),
		array("Industry", paramIndustry, industries),
		array("Career level", paramLevel, levels),
		array("Employment type", paramStatus, employmentTypes),
		array("Language", paramLanguage, languages),
		array("Country", paramCountry, countries),
	}
}
