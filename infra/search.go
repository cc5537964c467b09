package main

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsopensearchserverless"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/booksearch"
	"github.com/bookplatform/backend/shared/groups"
)

// searchCollection is the optional OpenSearch Serverless collection of
// the catalog search (context opensearch=true; docs/decisions.md,
// "Search behind one interface"): a search collection encrypted with an
// AWS-owned key, reachable over its public endpoint (the functions run
// outside a VPC) but only with a SigV4 request from a role the data
// access policy names, which are the functions whose group reads
// OPENSEARCH_ENDPOINT. Those functions are told to search it
// (SEARCH_ENGINE=opensearch) and granted aoss:APIAccessAll on it; the
// relay, whose search feed (shared/booksearch/searchfeed) reads the same
// settings, writes the books' documents and creates the index if a
// write finds it missing.
type searchCollection struct {
	name       string
	collection awsopensearchserverless.CfnCollection
	// readers are the searching functions' roles, writers the relay's.
	readers, writers []*string
}

// collectionName is the collection's (and its policies') name: the
// stack's name folded to what OpenSearch Serverless accepts (3-32
// characters, lower case, digits and hyphens, a letter first).
func collectionName(stackName string) string {
	base := regexp.MustCompile(`[^a-z0-9-]+`).ReplaceAllString(strings.ToLower(stackName), "")
	base = strings.TrimLeft(base, "0123456789-")
	const suffix = "-books"
	if len(base) > 32-len(suffix) {
		base = base[:32-len(suffix)]
	}
	if base == "" {
		base = "catalog"
	}
	return strings.TrimRight(base, "-") + suffix
}

// newSearchCollection makes the collection and its encryption and
// network policies, which must exist before it; nil when ops leaves
// OpenSearch off.
func newSearchCollection(stack awscdk.Stack, ops OpsProps) *searchCollection {
	if !ops.OpenSearch {
		return nil
	}
	name := collectionName(*stack.StackName())
	resource := []string{"collection/" + name}
	policy := func(v any) *string {
		b, _ := json.Marshal(v)
		return jsii.String(string(b))
	}
	encryption := awsopensearchserverless.NewCfnSecurityPolicy(stack, jsii.String("SearchEncryptionPolicy"), &awsopensearchserverless.CfnSecurityPolicyProps{
		Name: jsii.String(name), Type: jsii.String("encryption"),
		Description: jsii.String("The catalog search collection, encrypted with an AWS-owned key"),
		Policy:      policy(jsonObj{"Rules": []jsonObj{{"ResourceType": "collection", "Resource": resource}}, "AWSOwnedKey": true}),
	})
	network := awsopensearchserverless.NewCfnSecurityPolicy(stack, jsii.String("SearchNetworkPolicy"), &awsopensearchserverless.CfnSecurityPolicyProps{
		Name: jsii.String(name), Type: jsii.String("network"),
		Description: jsii.String("The catalog search collection's endpoint: public, every request signed and allowed by the data access policy"),
		Policy:      policy([]jsonObj{{"Rules": []jsonObj{{"ResourceType": "collection", "Resource": resource}}, "AllowFromPublic": true}}),
	})
	c := awsopensearchserverless.NewCfnCollection(stack, jsii.String("SearchCollection"), &awsopensearchserverless.CfnCollectionProps{
		Name: jsii.String(name), Type: jsii.String("SEARCH"),
		Description: jsii.String("Catalog search (books)"),
	})
	c.AddDependency(encryption)
	c.AddDependency(network)
	return &searchCollection{name: name, collection: c}
}

// env is what the functions that search are told: the engine and the
// collection's endpoint (the index is the default).
func (s *searchCollection) env() map[string]*string {
	if s == nil {
		return nil
	}
	return map[string]*string{
		booksearch.EnvEngine:             jsii.String(booksearch.EngineOpenSearch),
		booksearch.EnvOpenSearchEndpoint: s.collection.AttrCollectionEndpoint(),
	}
}

// grant lets fn reach the collection's data plane when its group (or,
// for the relay, its search feed) reads the endpoint; allowData then
// names its role in the data access policy, the relay's to write.
func (s *searchCollection) grant(fn awslambda.Function, f groups.Function) {
	if s == nil || !slices.Contains(f.Settings, booksearch.EnvOpenSearchEndpoint) {
		return
	}
	fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("SearchCollection"),
		Actions:   jsii.Strings("aoss:APIAccessAll"),
		Resources: jsii.Strings(*s.collection.AttrArn()),
	}))
	if f.Relay {
		s.writers = append(s.writers, fn.Role().RoleArn())
		return
	}
	s.readers = append(s.readers, fn.Role().RoleArn())
}

// searchIndexPermissions are what the data access policy allows the
// searching functions on the collection's indexes: search reads, never
// writes. searchFeedPermissions are the relay's: its feed writes and
// deletes documents (bulk and DELETE _doc) and creates the index when a
// write finds it missing (PUT <index>: the stack makes the collection,
// not the index, and a feed refused until the operator ran the backfill
// would hold up the relay's other consumers); it never describes it.
// The backfill (local/searchindex) still brings in the existing
// catalog, under an operator's principal whose own data access policy
// allows it (README).
var (
	searchIndexPermissions = []string{"aoss:DescribeIndex", "aoss:ReadDocument"}
	searchFeedPermissions  = []string{"aoss:CreateIndex", "aoss:WriteDocument"}
)

// allowData makes the data access policy naming the granted roles: one
// rule for the readers, one for the writers.
func (s *searchCollection) allowData(stack awscdk.Stack) {
	if s == nil || len(s.readers)+len(s.writers) == 0 {
		return
	}
	indexes := []string{"index/" + s.name + "/*"}
	var statements []jsonObj
	for _, st := range []struct {
		roles       []*string
		permissions []string
	}{{s.readers, searchIndexPermissions}, {s.writers, searchFeedPermissions}} {
		if len(st.roles) > 0 {
			statements = append(statements, jsonObj{
				"Rules":     []jsonObj{{"ResourceType": "index", "Resource": indexes, "Permission": st.permissions}},
				"Principal": st.roles,
			})
		}
	}
	awsopensearchserverless.NewCfnAccessPolicy(stack, jsii.String("SearchAccessPolicy"), &awsopensearchserverless.CfnAccessPolicyProps{
		Name: jsii.String(s.name), Type: jsii.String("data"),
		Description: jsii.String("The functions that search the catalog read its indexes; the relay's search feed writes their documents and creates a missing index"),
		// The role ARNs are tokens: ToJsonString resolves them in place.
		Policy: stack.ToJsonString(statements, nil),
	})
}

// jsonObj is an object of a policy document.
type jsonObj = map[string]any
