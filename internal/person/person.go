package person

// Lead is one simplified search result (spec 2.2). Each field has its row
// in PersonFields (fields.go), which every place that lists fields reads.
type Lead struct {
	FirstName     string `json:"firstName"`
	LastName      string `json:"lastName"`
	FullName      string `json:"fullName"`
	Title         string `json:"title"`
	Location      string `json:"location"`
	PreviousTitle string `json:"previousTitle"`
	Company       string `json:"company"`
	NetworkID     string `json:"networkId"`
	PageName      string `json:"pageName"`
}

// Position is one item of a profile's currentPosition (spec 2.4).
type Position struct {
	JobTitle string `json:"jobtitle"`
	Company  string `json:"company"`
	Date     string `json:"date"`
}

// TimelinePosition is one item of a profile's workPositionTimeline (spec 2.4).
type TimelinePosition struct {
	JobTitle       string  `json:"jobtitle"`
	Company        string  `json:"company"`
	Date           string  `json:"date"`
	StartDate      string  `json:"startDate"`
	EndDate        *string `json:"endDate"` // nil while the position is current
	DaysInPosition int     `json:"daysInPosition"`
}

// Profile is the result of a single-profile read (spec 2.4). Each field has
// its row in PersonFields.
type Profile struct {
	FullName             string             `json:"fullName"`
	CurrentPosition      []Position         `json:"currentPosition"`
	WorkPositionTimeline []TimelinePosition `json:"workPositionTimeline"`
	Description          string             `json:"description,omitempty"`
	ProfileImg           string             `json:"profileImg"`
	NetworkURL           string             `json:"networkUrl"`
	Private              bool               `json:"private"`
	PremiumProfile       bool               `json:"premiumProfile"`
}

// EnrichedProfile is the result of enrich (spec 2.5). Each field has its row
// in PersonFields.
type EnrichedProfile struct {
	ID               string `json:"id"`
	PageName         string `json:"pageName"`
	FirstName        string `json:"firstName"`
	LastName         string `json:"lastName"`
	FullName         string `json:"fullName"`
	Title            string `json:"title"`
	Location         string `json:"location"`
	PreviousTitle    string `json:"previousTitle"`
	Company          string `json:"company"`
	NetworkID        string `json:"networkId"`
	ProfileImgURL    string `json:"profileImgUrl"`
	Email            string `json:"email"`
	ValidationStatus string `json:"validationStatus"` // valid, catch all, empty
	CompanyDomain    string `json:"companyDomain"`
	CreditBalance    int    `json:"creditBalance"`
}

// Validation statuses of an enriched e-mail.
const (
	StatusValid    = "valid"
	StatusCatchAll = "catch all"
	StatusEmpty    = "empty"
)
