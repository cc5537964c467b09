// Package dynamo is the DynamoDB storage adapter: the single table's
// definition (table.go), the key builders, the only code that knows key
// formats (keys.go), and one store per aggregate (users, sessions, books,
// lines, reviews, ...), each implementing the Storer its domain package
// declares. Stores return the domains' sentinel errors wrapped with
// context; a transaction names what each item's failed condition means
// (tx.go); every list is read by one paging function (query.go); an item
// by its key, and a batch of them, through read.go.
// docs/data-model.md lists every entity and access pattern served here.
package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Attribute names of the table's keys and TTL.
const (
	AttrPK     = "PK"
	AttrSK     = "SK"
	AttrGSI1PK = "GSI1PK"
	AttrGSI1SK = "GSI1SK"
	AttrGSI2PK = "GSI2PK"
	AttrGSI2SK = "GSI2SK"
	AttrGSI3PK = "GSI3PK"
	AttrGSI3SK = "GSI3SK"
	AttrTTL    = "expiresAt" // epoch seconds; DynamoDB deletes the item after it
)

// Index is a key of the table: its primary key (Primary, no name) or a
// global secondary index (string keys, all attributes projected). Stores
// name the index a list is read from by these values, never by a string.
type Index struct {
	Name         string // "" for the primary key
	PartitionKey string
	SortKey      string
}

// The table's keys. Which list lives on which index is decided in
// keys.go; data-model.md lists them.
var (
	Primary = Index{PartitionKey: AttrPK, SortKey: AttrSK}
	GSI1    = Index{Name: "GSI1", PartitionKey: AttrGSI1PK, SortKey: AttrGSI1SK}
	GSI2    = Index{Name: "GSI2", PartitionKey: AttrGSI2PK, SortKey: AttrGSI2SK}
	GSI3    = Index{Name: "GSI3", PartitionKey: AttrGSI3PK, SortKey: AttrGSI3SK}
)

// Schema is the table's shape. The CDK stack and the local/test setup both
// build the table from it, so the two cannot drift.
type Schema struct {
	PartitionKey string
	SortKey      string
	Indexes      []Index
	TTLAttribute string
	// Stream is what the table's stream carries of each change: the new
	// image is all the relay reads (an outbox item is only ever inserted
	// with its event; outbox.go).
	Stream types.StreamViewType
}

// Table is the one table of the service.
var Table = Schema{
	PartitionKey: AttrPK,
	SortKey:      AttrSK,
	Indexes:      []Index{GSI1, GSI2, GSI3},
	TTLAttribute: AttrTTL,
	Stream:       types.StreamViewTypeNewImage,
}

// CreateTableInput is the CreateTable request for the schema (on-demand).
func (s Schema) CreateTableInput(name string) *dynamodb.CreateTableInput {
	attrs := map[string]bool{s.PartitionKey: true, s.SortKey: true}
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(s.PartitionKey), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(s.SortKey), KeyType: types.KeyTypeRange},
		},
	}
	if s.Stream != "" {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: s.Stream}
	}
	for _, ix := range s.Indexes {
		attrs[ix.PartitionKey], attrs[ix.SortKey] = true, true
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: aws.String(ix.Name),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(ix.PartitionKey), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(ix.SortKey), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		})
	}
	for _, a := range []string{s.PartitionKey, s.SortKey} {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
	}
	for _, ix := range s.Indexes {
		for _, a := range []string{ix.PartitionKey, ix.SortKey} {
			if attrs[a] {
				in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
				attrs[a] = false
			}
		}
	}
	return in
}

// EnsureTable creates the table with its stream and turns on TTL, unless
// it already exists; an existing table gets the indexes and the stream it
// lacks. Used by the local server and the tests; AWS gets the table from
// CDK.
func (s Schema) EnsureTable(ctx context.Context, client *dynamodb.Client, name string) error {
	_, err := client.CreateTable(ctx, s.CreateTableInput(name))
	var inUse *types.ResourceInUseException
	if errors.As(err, &inUse) {
		if err := s.addMissingIndexes(ctx, client, name); err != nil {
			return err
		}
		return s.enableStream(ctx, client, name)
	}
	if err != nil {
		return fmt.Errorf("create table %s: %w", name, err)
	}
	waiter := dynamodb.NewTableExistsWaiter(client)
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 30e9); err != nil {
		return fmt.Errorf("wait for table %s: %w", name, err)
	}
	_, err = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(s.TTLAttribute), Enabled: aws.Bool(true),
		},
	})
	if err != nil {
		return fmt.Errorf("enable TTL on %s: %w", name, err)
	}
	return nil
}

// addMissingIndexes creates the schema's indexes that an existing table
// lacks (a local run's data kept from before an index was added; in AWS
// CloudFormation does this), one at a time as DynamoDB requires, waiting
// for each to become active.
func (s Schema) addMissingIndexes(ctx context.Context, client *dynamodb.Client, name string) error {
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return fmt.Errorf("describe table %s: %w", name, err)
	}
	have := map[string]bool{}
	for _, ix := range out.Table.GlobalSecondaryIndexes {
		have[aws.ToString(ix.IndexName)] = true
	}
	want := s.CreateTableInput(name)
	for _, ix := range want.GlobalSecondaryIndexes {
		if have[aws.ToString(ix.IndexName)] {
			continue
		}
		_, err := client.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName:            aws.String(name),
			AttributeDefinitions: want.AttributeDefinitions,
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: ix.IndexName, KeySchema: ix.KeySchema, Projection: ix.Projection,
			}}},
		})
		if err != nil {
			return fmt.Errorf("add index %s to %s: %w", aws.ToString(ix.IndexName), name, err)
		}
		if err := waitIndexActive(ctx, client, name, aws.ToString(ix.IndexName)); err != nil {
			return err
		}
	}
	return nil
}

// enableStream turns the schema's stream on for an existing table that
// has none (a local run's data kept from before the outbox).
func (s Schema) enableStream(ctx context.Context, client *dynamodb.Client, name string) error {
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return fmt.Errorf("describe table %s: %w", name, err)
	}
	if spec := out.Table.StreamSpecification; s.Stream == "" || (spec != nil && aws.ToBool(spec.StreamEnabled)) {
		return nil
	}
	_, err = client.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName:           aws.String(name),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: s.Stream},
	})
	if err != nil {
		return fmt.Errorf("enable the stream of %s: %w", name, err)
	}
	return nil
}

// waitIndexActive polls until the index has been built (a minute at most).
func waitIndexActive(ctx context.Context, client *dynamodb.Client, table, index string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			return fmt.Errorf("wait for index %s of %s: %w", index, table, err)
		}
		for _, ix := range out.Table.GlobalSecondaryIndexes {
			if aws.ToString(ix.IndexName) == index && ix.IndexStatus == types.IndexStatusActive {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for index %s of %s: %w", index, table, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
