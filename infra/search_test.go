package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/booksearch"
)

// With opensearch=true (the hardened stack) there is one search
// collection, after its encryption (AWS-owned key) and network policies;
// the functions whose group reads OPENSEARCH_ENDPOINT (the books group)
// are told to search it, granted aoss:APIAccessAll on it alone and named
// in its data access policy, to read only; the relay, whose search feed
// reads the same settings, is told and granted the same and named to
// write documents only; no other function is. Without it (the default
// stack) there is none of this.
func TestSearchCollection(t *testing.T) {
	for _, r := range []string{"AWS::OpenSearchServerless::Collection", "AWS::OpenSearchServerless::SecurityPolicy", "AWS::OpenSearchServerless::AccessPolicy"} {
		if n := len(*template.FindResources(jsii.String(r), nil)); n != 0 {
			t.Errorf("default stack: %d %s", n, r)
		}
	}
	for id, fn := range *template.FindResources(jsii.String("AWS::Lambda::Function"), nil) {
		vars := fmt.Sprint((*fn)["Properties"].(obj)["Environment"])
		if strings.Contains(vars, booksearch.EnvEngine) || strings.Contains(vars, booksearch.EnvOpenSearchEndpoint) {
			t.Errorf("default stack: %s is told of a search engine: %s", id, vars)
		}
	}

	collections := *hardened.FindResources(jsii.String("AWS::OpenSearchServerless::Collection"), nil)
	if len(collections) != 1 {
		t.Fatalf("%d collections, want 1", len(collections))
	}
	var collID string
	var coll obj
	for id, c := range collections {
		collID, coll = id, *c
	}
	name := collectionName(*hardenedStack.StackName())
	if p := coll["Properties"].(obj); p["Type"] != "SEARCH" || p["Name"] != name {
		t.Errorf("collection %v", p)
	}
	policies := map[string]string{}
	for id, p := range *hardened.FindResources(jsii.String("AWS::OpenSearchServerless::SecurityPolicy"), nil) {
		props := (*p)["Properties"].(obj)
		policies[fmt.Sprint(props["Type"])] = fmt.Sprint(props["Policy"])
		if !slices.Contains(strs(coll["DependsOn"]), id) {
			t.Errorf("the collection does not wait for its %v policy %s", props["Type"], id)
		}
	}
	if p := policies["encryption"]; !strings.Contains(p, `"AWSOwnedKey":true`) || !strings.Contains(p, `"collection/`+name+`"`) {
		t.Errorf("encryption policy %s", p)
	}
	if p := policies["network"]; !strings.Contains(p, `"AllowFromPublic":true`) || !strings.Contains(p, `"collection/`+name+`"`) {
		t.Errorf("network policy %s", p)
	}

	collArn := fmt.Sprint(obj{"Fn::GetAtt": []any{collID, "Arn"}})
	endpoint := fmt.Sprint(obj{"Fn::GetAtt": []any{collID, "CollectionEndpoint"}})
	var searchers []string
	relayRole := ""
	for _, f := range functions {
		fn, sts := functionIn(t, hardened, f.Name)
		vars := envOf(fn)
		var granted bool
		for _, st := range sts {
			for _, a := range strs(st["Action"]) {
				if strings.HasPrefix(a, "aoss:") {
					granted = true
					if a != "aoss:APIAccessAll" || fmt.Sprint(st["Resource"]) != collArn {
						t.Errorf("%s: %s on %v, want aoss:APIAccessAll on the collection alone", f.Name, a, st["Resource"])
					}
				}
			}
		}
		reads := slices.Contains(f.Settings, booksearch.EnvOpenSearchEndpoint)
		if reads && f.Relay {
			relayRole = fmt.Sprint(fn["Properties"].(obj)["Role"])
		} else if reads {
			searchers = append(searchers, fmt.Sprint(fn["Properties"].(obj)["Role"]))
		}
		if reads {
			if vars[booksearch.EnvEngine] != booksearch.EngineOpenSearch || fmt.Sprint(vars[booksearch.EnvOpenSearchEndpoint]) != endpoint {
				t.Errorf("%s: %s = %v, %s = %v", f.Name, booksearch.EnvEngine, vars[booksearch.EnvEngine], booksearch.EnvOpenSearchEndpoint, vars[booksearch.EnvOpenSearchEndpoint])
			}
		}
		if granted != reads {
			t.Errorf("%s: granted the collection %v, reads its endpoint %v", f.Name, granted, reads)
		}
	}
	if len(searchers) == 0 || relayRole == "" {
		t.Fatalf("searchers %v, relay %q: want the books function and the relay to read %s", searchers, relayRole, booksearch.EnvOpenSearchEndpoint)
	}

	access := *hardened.FindResources(jsii.String("AWS::OpenSearchServerless::AccessPolicy"), nil)
	if len(access) != 1 {
		t.Fatalf("%d data access policies, want 1", len(access))
	}
	for _, p := range access {
		props := (*p)["Properties"].(obj)
		doc := fmt.Sprint(props["Policy"])
		// Two statements (each its principals, then its rules): the
		// readers' first, the relay's second.
		stmts := strings.Split(doc, `{"Principal":`)
		if len(stmts) != 3 {
			t.Fatalf("data access policy of %d statements, want 2: %s", len(stmts)-1, doc)
		}
		reads, writes := stmts[1], stmts[2]
		if props["Type"] != "data" || strings.Count(doc, `index/`+name+`/*`) != 2 || !strings.Contains(reads, `"aoss:ReadDocument"`) ||
			strings.Contains(reads, "Write") || strings.Contains(reads, "Create") ||
			!strings.Contains(writes, `"Permission":["aoss:CreateIndex","aoss:WriteDocument"]`) {
			t.Errorf("data access policy %v", props)
		}
		for _, role := range searchers {
			if !strings.Contains(reads, role) || strings.Contains(writes, role) {
				t.Errorf("data access policy does not name the role %s to read only: %s", role, doc)
			}
		}
		if strings.Contains(reads, relayRole) || !strings.Contains(writes, relayRole) {
			t.Errorf("data access policy does not name the relay's role %s to write only: %s", relayRole, doc)
		}
	}
}

func TestCollectionName(t *testing.T) {
	for in, want := range map[string]string{
		"HardenedBackend":                         "hardenedbackend-books",
		"BookPlatform-Prod-EuWest1-Backend-Stack": "bookplatform-prod-euwest1-books",
		"2024_Stack":                              "stack-books",
		"___":                                     "catalog-books",
	} {
		if got := collectionName(in); got != want || len(got) > 32 {
			t.Errorf("collectionName(%q) = %q, want %q", in, got, want)
		}
	}
	o, err := OpsFromContext(appWith(map[string]any{CtxOpenSearch: "true"}).Node())
	if err != nil || !o.OpenSearch {
		t.Errorf("opensearch=true: %+v, %v", o, err)
	}
	if _, err := OpsFromContext(appWith(map[string]any{CtxOpenSearch: "maybe"}).Node()); err == nil || !strings.Contains(err.Error(), CtxOpenSearch) {
		t.Errorf("opensearch=maybe: %v", err)
	}
}
