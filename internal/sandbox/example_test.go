package sandbox_test

import (
	"encoding/json"
	"fmt"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/sandbox"
	"net/http"
	"strings"
)

// A sandbox reached through its in-process transport: no listener, no
// network. Tests that need a real port can serve it with httptest.NewServer.
func ExampleServer_Transport() {
	s := sandbox.New(sandbox.Options{Seed: 1, NoLatency: true})
	client := &http.Client{Transport: s.Transport()}

	req, _ := http.NewRequest(http.MethodPost, sandbox.BaseURL+"/v1/scrap",
		strings.NewReader(`{"keywords":"Manager"}`))
	req.Header.Set("X-Api-Key", sandbox.DefaultKey)
	resp, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var leads []person.Lead
	json.NewDecoder(resp.Body).Decode(&leads)

	st := s.Stats()
	fmt.Println(resp.StatusCode, len(leads), st.ByOp[sandbox.OpSearch], s.Quota())
	// Output: 200 300 1 9999
}
