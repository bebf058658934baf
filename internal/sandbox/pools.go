package sandbox

import "strings"

// The pools below feed the synthetic population. Entries written
// "display|ascii" carry the romanised form used for page names and e-mail
// addresses; other entries are romanised by asciiFold.

// origin is a naming tradition: where first and last names come from, and the
// language its members speak besides the country's.
type origin struct {
	first, last []string
	language    string // a languageFilter value, or "" when none of the spec's
}

func words(s string) []string { return strings.Split(s, ",") }

var origins = map[string]origin{
	"de": {words("Max,Anna,Jürgen,Jörg,Käthe,Lukas,Sophie,Günther,Maximilian,Lena,Felix,Marie,Sören,Björn,Uwe,Heike,Matthias,Sabine,Tobias,Katrin,Hans-Peter,Anne-Kathrin"),
		words("Mustermann,Müller,Schmidt,Schneider,Fischer,Weber,Meyer,Wagner,Becker,Schäfer,Schröder,Köhler,Groß,Weiß,Hoffmann,Krüger,Böhm,Vogel,Brandt,Zimmermann,von Bülow"), "German"},
	"en": {words("James,Olivia,Oliver,Emily,Jack,Sophie,Harry,Charlotte,Michael,Sarah,David,Jennifer,Ryan,Megan,Siobhan,Mary-Jane"),
		words("Smith,Johnson,Williams,Brown,Taylor,O'Brien,O'Connor,McDonald,Wilson,Davies,Evans,Miller,Thompson,Walker,Clarke"), "English"},
	"fr": {words("François,Zoë,Amélie,Hélène,Jérôme,Léa,Noël,Chloé,Étienne,Gaëlle,Benoît,Jean-Luc"),
		words("Dupont,Lefèvre,D'Arcy,Mercier,Béranger,Moreau,Girard,Rousseau,Lemaître,Fontaine,de Villepin"), "French"},
	"es": {words("José,María,Jesús,Lucía,Andrés,Sofía,Martín,Inés,Álvaro,Begoña,Juan Carlos"),
		words("García,Martínez,Núñez,Muñoz,Pérez,Rodríguez,Fernández,Gómez,de la Cruz,Ibáñez,García López"), "Spanish"},
	"it": {words("Giuseppe,Giulia,Niccolò,Chiara,Luca,Francesca,Matteo,Alessandro,Martina,Lorenzo"),
		words("Rossi,Russo,Ferrari,Esposito,Bianchi,Romano,Colombo,D'Angelo,De Luca,Mancini"), "Italian"},
	"tr": {words("Mehmet,Ayşe,Mustafa,Fatma,Çağla,Emre,Gökhan,Şule,Oğuz,İlker,Zeynep,Burak"),
		words("Yılmaz,Kaya,Demir,Şahin,Çelik,Yıldız,Öztürk,Aydın,Arslan,Doğan"), "Turkish"},
	"zh": {words("伟|Wei,芳|Fang,娜|Na,敏|Min,静|Jing,磊|Lei,洋|Yang,婷|Ting,晓明|Xiaoming"),
		words("王|Wang,李|Li,张|Zhang,刘|Liu,陈|Chen,杨|Yang,黄|Huang,赵|Zhao,欧阳|Ouyang"), "Chinese"},
	"zh-latn": {words("Wei,Xiaoming,Li,Jing,Hao,Yan,Jun,Mei"),
		words("Wang,Li,Zhang,Liu,Chen,Zhou,Wu,Xu"), "Chinese"},
	"ru": {words("Иван|Ivan,Ольга|Olga,Дмитрий|Dmitry,Наталья|Natalya,Сергей|Sergey,Анна|Anna,Алексей|Alexey,Елена|Elena"),
		words("Петров|Petrov,Иванова|Ivanova,Смирнов|Smirnov,Кузнецова|Kuznetsova,Попов|Popov,Соколова|Sokolova,Волков|Volkov"), "Russian"},
	"ar": {words("محمد|Mohammed,فاطمة|Fatima,أحمد|Ahmed,ليلى|Layla,يوسف|Youssef,مريم|Maryam"),
		words("العلي|Al-Ali,حسن|Hassan,الخطيب|Al-Khatib,منصور|Mansour,حداد|Haddad"), "Arabic"},
	"ar-latn": {words("Omar,Karim,Nadia,Samir,Rania,Yasmin"),
		words("El-Amin,Haddad,Khalil,Nasser,Saleh,Abu-Bakr"), "Arabic"},
	"in": {words("Priya,Rahul,Ananya,Arjun,Deepika,Vikram,Sneha,Aditya"),
		words("Sharma,Patel,Iyer,Gupta,Reddy,Nair,Singh,Mukherjee"), ""},
	"hi": {words("प्रिया|Priya,राहुल|Rahul,अनन्या|Ananya,अर्जुन|Arjun,दीपिका|Deepika"),
		words("शर्मा|Sharma,पटेल|Patel,गुप्ता|Gupta,सिंह|Singh"), ""},
	"nl": {words("Sanne,Daan,Sem,Femke,Bram,Lieke,Joost"),
		words("de Vries,van den Berg,Jansen,Bakker,Visser,van Dijk,de Jong"), "Dutch"},
}

// weighted is "key:weight,key:weight".
type weighted []struct {
	key string
	w   int
}

func parseWeighted(s string) weighted {
	var out weighted
	for _, part := range strings.Split(s, ",") {
		k, w, _ := strings.Cut(part, ":")
		n := 0
		for _, c := range w {
			n = n*10 + int(c-'0')
		}
		out = append(out, struct {
			key string
			w   int
		}{k, n})
	}
	return out
}

// countryInfo describes one country of countryFilter.
type countryInfo struct {
	weight       int      // share of the population
	cities       weighted // cities with their shares
	origins      weighted // naming traditions with their shares
	language     string   // main language (languageFilter value)
	universities []string
	prefixes     []string // company name prefixes
	legal        []string // legal forms
	tld          string
}

var countryInfos = map[string]countryInfo{
	"Germany": {30, parseWeighted("Berlin:25,Hamburg:15,München:14,Köln:10,Frankfurt am Main:10,Stuttgart:8,Düsseldorf:7,Leipzig:6,Dresden:5"),
		parseWeighted("de:70,tr:8,ru:4,ar-latn:3,it:4,en:3,nl:2,ar:2,zh:1,in:3"), "German",
		words("Technische Universität München,Humboldt-Universität zu Berlin,Universität Hamburg,RWTH Aachen,Universität zu Köln"),
		words("Nordlicht,Spreewerk,Rheinblick,Elbfeld,Isarwerk,Schwarzwald,Brückner,Lindenhof,Hanse,Kranich"), words("GmbH,AG,GmbH & Co. KG"), "de"},
	"Austria": {8, parseWeighted("Wien:40,Graz:18,Linz:15,Salzburg:15,Innsbruck:12"),
		parseWeighted("de:80,tr:6,it:4,ru:4,en:3,nl:3"), "German",
		words("Universität Wien,Technische Universität Graz,Universität Innsbruck"),
		words("Alpenglanz,Donautal,Tirolia,Wienerwald,Kärntner,Steirer"), words("GmbH,AG"), "at"},
	"Switzerland": {8, parseWeighted("Zürich:35,Genève:20,Basel:18,Bern:15,Lausanne:12"),
		parseWeighted("de:55,fr:20,it:15,en:5,nl:5"), "German",
		words("ETH Zürich,Université de Genève,Universität Basel,EPFL"),
		words("Helvetia,Matterhorn,Limmat,Aare,Gotthard,Léman"), words("AG,SA,GmbH"), "ch"},
	"United Kingdom": {12, parseWeighted("London:45,Manchester:15,Edinburgh:15,Birmingham:13,Bristol:12"),
		parseWeighted("en:75,in:10,ar-latn:4,fr:3,it:3,zh-latn:3,nl:2"), "English",
		words("University of Oxford,University of Cambridge,Imperial College London,University of Edinburgh"),
		words("Thames,Albion,Highland,Kingsbridge,Mersey,Pennine"), words("Ltd,plc"), "co.uk"},
	"United States of America": {14, parseWeighted("New York:25,San Francisco:20,Chicago:15,Austin:15,Boston:13,Seattle:12"),
		parseWeighted("en:70,es:12,zh-latn:6,in:7,it:3,ar-latn:2"), "English",
		words("Massachusetts Institute of Technology,Stanford University,University of Texas at Austin,Columbia University"),
		words("Liberty,Pioneer,Redwood,Hudson,Lone Star,Evergreen"), words("Inc.,LLC,Corp."), "com"},
	"China": {6, parseWeighted("Beijing:30,Shanghai:30,Shenzhen:22,Hangzhou:18"),
		parseWeighted("zh:70,zh-latn:25,en:5"), "Chinese",
		words("清华大学|Tsinghua University,Peking University,Fudan University,浙江大学|Zhejiang University"),
		words("Jade,Golden Dragon,Pearl River,Huaxia,Yangtze,Great Wall"), []string{"Co., Ltd."}, "cn"},
	"India": {7, parseWeighted("Bengaluru:30,Mumbai:25,New Delhi:20,Hyderabad:13,Pune:12"),
		parseWeighted("in:65,hi:30,en:5"), "English",
		words("IIT Bombay,IIT Delhi,Indian Institute of Science,University of Mumbai"),
		words("Ganga,Lotus,Sahyadri,Indus,Deccan,Himalaya"), words("Pvt. Ltd.,Ltd."), "in"},
	"Italy": {5, parseWeighted("Milano:35,Roma:30,Torino:20,Bologna:15"),
		parseWeighted("it:85,en:5,fr:5,ar-latn:5"), "Italian",
		words("Politecnico di Milano,Sapienza Università di Roma,Università di Bologna"),
		words("Lombarda,Tevere,Vesuvio,Dolomiti,Adriatica,Toscana"), words("S.p.A.,S.r.l."), "it"},
	"Spain": {5, parseWeighted("Madrid:35,Barcelona:30,Valencia:15,Sevilla:10,Málaga:10"),
		parseWeighted("es:85,en:5,fr:5,ar-latn:5"), "Spanish",
		words("Universidad Complutense de Madrid,Universitat de Barcelona,Universidad de Sevilla"),
		words("Ibérica,Sol,Alhambra,Cantábrico,Mediterránea,Castilla"), words("S.L.,S.A."), "es"},
	"Turkey": {5, parseWeighted("İstanbul:45,Ankara:25,İzmir:18,Bursa:12"),
		parseWeighted("tr:88,ar:4,ar-latn:3,en:5"), "Turkish",
		words("Boğaziçi Üniversitesi,Orta Doğu Teknik Üniversitesi,İstanbul Teknik Üniversitesi"),
		words("Boğaziçi,Anadolu,Ege,Kapadokya,Marmara,Karadeniz"), words("A.Ş.,Ltd. Şti."), "com.tr"},
}

// industryNouns name a company of each industry.
var industryNouns = map[string]string{
	"Architecture and planning":                    "Architects",
	"Automotive and vehicle manufacturing":         "Motors",
	"Banking and financial services":               "Bank",
	"Consulting":                                   "Consulting",
	"Energy, water and environment":                "Energy",
	"Education and science":                        "Academy",
	"Health and social":                            "Care",
	"Real Estate":                                  "Real Estate",
	"Industry and mechanical engineering":          "Machinery",
	"Internet and IT":                              "Software",
	"Consumer goods and trade":                     "Retail",
	"Art, culture and sport":                       "Arts",
	"Marketing, PR and design":                     "Creative",
	"Media and publishing":                         "Publishing",
	"Civil service, associations and institutions": "Association",
	"HR services":                                  "Staffing",
	"Medical services":                             "Medical",
	"Telecommunication":                            "Telecom",
	"Tourism and food service":                     "Hotels",
	"Transport and logistics":                      "Logistics",
	"Insurance":                                    "Insurance",
	"Auditing, tax and law":                        "Legal & Tax",
	"Other industries":                             "Group",
}

// industryWeight makes some industries more common than others.
var industryWeight = map[string]int{
	"Internet and IT": 14, "Consulting": 8, "Banking and financial services": 7,
	"Industry and mechanical engineering": 7, "Automotive and vehicle manufacturing": 6,
	"Consumer goods and trade": 6, "Health and social": 5, "Telecommunication": 4,
	"Media and publishing": 4, "Transport and logistics": 4, "Insurance": 4,
	"Education and science": 4, "Marketing, PR and design": 4,
}

// disciplineInfo gives the titles and skills of a discipline.
type disciplineInfo struct {
	weight int
	area   string   // used in "<area> Manager", "Working Student <area>"
	roles  []string // titles of a professional
	execs  []string // titles of an executive
	skills []string
}

var disciplineInfos = map[string]disciplineInfo{
	"Analysis and statistics": {4, "Analytics", words("Data Analyst,Data Scientist,Statistician,BI Analyst"),
		words("Head of Analytics,Chief Data Officer"), words("SQL,Python,R,Statistics,Tableau,Machine Learning")},
	"Administration": {3, "Administration", words("Office Administrator,Executive Assistant,Office Coordinator"),
		words("Head of Administration"), words("MS Office,Organisation,Scheduling,Bookkeeping")},
	"Consulting": {5, "Consulting", words("Consultant,Business Consultant,Strategy Consultant"),
		words("Partner,Managing Director Consulting"), words("Strategy,Change Management,PowerPoint,Stakeholder Management")},
	"Customer service": {3, "Customer Service", words("Customer Service Representative,Support Specialist,Customer Success Specialist"),
		words("Head of Customer Service,VP Customer Success"), words("Zendesk,CRM,Communication,Complaint Handling")},
	"Purchasing, materials management & logistics": {3, "Procurement", words("Buyer,Purchasing Specialist,Logistics Coordinator,Supply Chain Analyst"),
		words("Head of Procurement,Chief Procurement Officer"), words("SAP MM,Negotiation,Supply Chain,Logistics")},
	"Finance, accounting & controlling": {6, "Finance", words("Accountant,Financial Controller,Financial Analyst"),
		words("CFO,Head of Finance"), words("IFRS,HGB,SAP FI,Controlling,Excel")},
	"Teaching, R&D": {3, "Research", words("Research Scientist,Lecturer,Teacher,Research Engineer"),
		words("Head of Research,Professor"), words("Research,Teaching,Python,Lab Work,Publications")},
	"Health, medical and social": {3, "Care", words("Nurse,Physician,Social Worker,Physiotherapist"),
		words("Chief Medical Officer,Head of Nursing"), words("Patient Care,Diagnostics,Counselling")},
	"Graphic design and architecture": {3, "Design", words("Graphic Designer,Architect,UX Designer,Interior Architect"),
		words("Creative Director,Head of Design"), words("Figma,AutoCAD,Adobe Photoshop,Revit,Typography")},
	"Engineering and technical": {8, "Engineering", words("Mechanical Engineer,Electrical Engineer,Process Engineer,Test Engineer"),
		words("Head of Engineering,VP Engineering"), words("CAD,SolidWorks,CATIA,FMEA,MATLAB")},
	"IT and software development": {12, "IT", words("Software Engineer,Backend Developer,Frontend Developer,DevOps Engineer,Data Engineer,System Administrator"),
		words("CTO,CIO,VP Engineering"), words("Go,Java,Python,Kubernetes,AWS,TypeScript,SQL,Docker")},
	"Management and corporate development": {5, "Corporate Development", words("Corporate Development Associate,Strategy Analyst,Assistant to the CEO"),
		words("CEO,Managing Director,COO,Founder"), words("M&A,Strategy,Leadership,Business Planning")},
	"Marketing and advertising": {7, "Marketing", words("Marketing Specialist,Content Marketer,SEO Specialist,Performance Marketer"),
		words("CMO,Head of Marketing"), words("SEO,Google Ads,Content Marketing,HubSpot,Social Media")},
	"HR": {4, "HR", words("HR Specialist,Recruiter,HR Business Partner,Talent Acquisition Specialist"),
		words("CHRO,Head of People"), words("Recruiting,Labour Law,Personio,Onboarding")},
	"PR and journalism": {3, "Communications", words("Journalist,Editor,PR Specialist,Communications Specialist"),
		words("Head of Communications,Editor-in-Chief"), words("Writing,Media Relations,Storytelling")},
	"Production and manufacturing": {4, "Production", words("Production Planner,Machine Operator,Production Engineer"),
		words("Head of Production,Plant Director"), words("Lean Manufacturing,Six Sigma,CNC,Kaizen")},
	"Product management": {4, "Product", words("Product Owner,Product Analyst,Product Designer"),
		words("CPO,Head of Product"), words("Roadmapping,Scrum,Jira,User Research")},
	"Project management": {5, "Project", words("Project Coordinator,Project Engineer,PMO Analyst"),
		words("Head of PMO,Programme Director"), words("PRINCE2,PMP,Scrum,MS Project")},
	"Process planning & QA": {3, "Quality", words("Quality Engineer,QA Tester,Process Planner,Quality Auditor"),
		words("Head of Quality,VP Quality"), words("ISO 9001,Six Sigma,Test Automation,Auditing")},
	"Legal": {3, "Legal", words("Lawyer,Legal Counsel,Paralegal,Compliance Officer"),
		words("General Counsel,Head of Legal"), words("Contract Law,GDPR,Compliance,Litigation")},
	"Sales and commerce": {10, "Sales", words("Sales Representative,Account Executive,Key Account Specialist,Inside Sales Representative"),
		words("VP Sales,Chief Sales Officer,Head of Sales"), words("Salesforce,Negotiation,B2B Sales,Cold Calling")},
	"Other": {2, "Operations", words("Operations Specialist,Consultant,Freelancer"),
		words("Director of Operations"), words("Organisation,Communication,Problem Solving")},
}

var levelWeight = map[string]int{
	"Professional/Experienced": 34, "Senior": 20, "Manager": 18, "Executive": 8, "Entry": 12, "Student/Intern": 8,
}

var statusWeight = map[string]int{
	"Full time employee": 70, "Self employed": 6, "Owner": 3, "Part time employee": 8, "Partner": 2,
	"Intern": 2, "Volunteer": 1, "Board member": 1, "Recruiter": 2, "Civil servant": 5,
}

// injection is a value to put into a member's field.
type injection struct{ field, value string }

// injections are values with a leading "=", "+", "-" or "@": a spreadsheet
// would run them as formulas, so exports must neutralise them.
var injections = []injection{
	{"first", "=HYPERLINK(\"http://evil.invalid\",\"Click\")"},
	{"last", "+49 1234 5678"},
	{"company", "=SUM(1+1) GmbH"},
	{"title", "+Head of Growth"},
	{"first", "=cmd|' /C calc'!A0"},
	{"title", "-Sales Lead"},
	{"company", "@Home Services Ltd"},
	{"last", "=1+2"},
}

// cityNames are the other names a city answers to in the city filter: the
// population's cities carry their local names ("München, Germany"), and
// people search for them in English too ("Munich").
var cityNames = map[string][]string{
	"München":           {"Munich"},
	"Köln":              {"Cologne"},
	"Frankfurt am Main": {"Frankfurt"},
	"Düsseldorf":        {"Dusseldorf"},
	"Wien":              {"Vienna"},
	"Zürich":            {"Zurich"},
	"Genève":            {"Geneva", "Genf"},
	"Bern":              {"Berne"},
	"Milano":            {"Milan"},
	"Roma":              {"Rome"},
	"Torino":            {"Turin"},
	"Sevilla":           {"Seville"},
	"İstanbul":          {"Istanbul"},
	"İzmir":             {"Izmir"},
	"Bengaluru":         {"Bangalore"},
	"Mumbai":            {"Bombay"},
}
