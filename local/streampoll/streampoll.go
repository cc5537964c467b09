// Package streampoll is the local run's and the tests' stand-in for
// Lambda's DynamoDB stream event source: it reads the table's stream on
// DynamoDB Local (which keeps one, as DynamoDB does) and hands the
// records the filter selects to the same handler the relay Lambda runs
// (shared/relay), as the DynamoDBEvent Lambda would build, retrying a
// shard from the first record the handler reports failed.
//
// It keeps no checkpoint: each start reads every shard from its oldest
// record (TRIM_HORIZON, 24 hours on DynamoDB Local as in AWS), so an
// event committed while nothing polled is delivered when the poller
// starts, and what was delivered before is skipped by the relay's dedupe
// records. Unlike the event source it retries a failing record for ever
// (there is no dead-letter queue locally), logging each failure.
package streampoll

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	awsevents "github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// Handler is a stream handler with partial batch responses
// (relay.Relay.Handle).
type Handler func(ctx context.Context, ev awsevents.DynamoDBEvent) (awsevents.DynamoDBEventResponse, error)

// Options configure a poller.
type Options struct {
	// AWS and Endpoint build the streams client: DynamoDB Local serves
	// its streams on its own endpoint.
	AWS      aws.Config
	Endpoint string
	// DB finds the table's stream (DescribeTable).
	DB    *dynamodb.Client
	Table string
	// Filter selects the records handed to Handle (the event source's
	// filter); nil hands every record.
	Filter func(awsevents.DynamoDBEventRecord) bool
	Handle Handler
	// BatchSize is the most records one call of Handle gets (default
	// 100); Idle the pause when no shard had a record (default 100 ms);
	// RetryPause the pause before a failed record is retried (default
	// 1 s).
	BatchSize        int
	Idle, RetryPause time.Duration
	Logger           *slog.Logger
}

// shardState is one shard being read.
type shardState struct {
	iterator *string
	done     bool // the shard is closed and read to its end
}

// Run polls until ctx ends. It returns an error only when the table has
// no stream (or cannot be described); failures of the stream calls and
// of the handler are logged and retried.
func Run(ctx context.Context, o Options) error {
	if o.BatchSize <= 0 {
		o.BatchSize = 100
	}
	if o.Idle <= 0 {
		o.Idle = 100 * time.Millisecond
	}
	if o.RetryPause <= 0 {
		o.RetryPause = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	out, err := o.DB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(o.Table)})
	if err != nil {
		return fmt.Errorf("streampoll: describe table %s: %w", o.Table, err)
	}
	arn := aws.ToString(out.Table.LatestStreamArn)
	if arn == "" {
		return fmt.Errorf("streampoll: table %s has no stream", o.Table)
	}
	client := dynamodbstreams.NewFromConfig(o.AWS, func(so *dynamodbstreams.Options) {
		so.BaseEndpoint = aws.String(o.Endpoint)
	})
	p := &poller{o: o, client: client, arn: arn, shards: map[string]*shardState{}}
	for ctx.Err() == nil {
		if err := p.discover(ctx); err != nil && ctx.Err() == nil {
			o.Logger.Warn("streampoll: describe stream failed", "stream", arn, "error", err.Error())
			pause(ctx, o.RetryPause)
			continue
		}
		if !p.readAll(ctx) {
			pause(ctx, o.Idle)
		}
	}
	return nil
}

type poller struct {
	o      Options
	client *dynamodbstreams.Client
	arn    string
	shards map[string]*shardState
}

// discover starts reading every shard not yet known, at its oldest record.
func (p *poller) discover(ctx context.Context) error {
	var start *string
	for {
		out, err := p.client.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(p.arn), ExclusiveStartShardId: start})
		if err != nil {
			return err
		}
		for _, sh := range out.StreamDescription.Shards {
			id := aws.ToString(sh.ShardId)
			if _, known := p.shards[id]; known {
				continue
			}
			it, err := p.iterator(ctx, id, types.ShardIteratorTypeTrimHorizon, nil)
			if err != nil {
				return err
			}
			p.shards[id] = &shardState{iterator: it}
		}
		start = out.StreamDescription.LastEvaluatedShardId
		if start == nil {
			return nil
		}
	}
}

func (p *poller) iterator(ctx context.Context, shard string, typ types.ShardIteratorType, seq *string) (*string, error) {
	out, err := p.client.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
		StreamArn: aws.String(p.arn), ShardId: aws.String(shard), ShardIteratorType: typ, SequenceNumber: seq,
	})
	if err != nil {
		return nil, fmt.Errorf("shard iterator of %s: %w", shard, err)
	}
	return out.ShardIterator, nil
}

// readAll reads one batch of every open shard and reports whether any
// had records.
func (p *poller) readAll(ctx context.Context) bool {
	busy := false
	for id, sh := range p.shards {
		if sh.done || ctx.Err() != nil {
			continue
		}
		n, err := p.read(ctx, id, sh)
		if err != nil && ctx.Err() == nil {
			p.o.Logger.Warn("streampoll: shard failed", "shard", id, "error", err.Error())
			// Start the shard over: what was delivered is deduplicated.
			delete(p.shards, id)
			pause(ctx, p.o.RetryPause)
		}
		busy = busy || n > 0
	}
	return busy
}

// read hands one batch of a shard to the handler; a failed record is
// read again (with the records after it) after a pause.
func (p *poller) read(ctx context.Context, id string, sh *shardState) (int, error) {
	out, err := p.client.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: sh.iterator, Limit: aws.Int32(int32(p.o.BatchSize))})
	if err != nil {
		return 0, err
	}
	ev := awsevents.DynamoDBEvent{}
	for _, r := range out.Records {
		rec := recordOf(r, p.arn)
		if p.o.Filter == nil || p.o.Filter(rec) {
			ev.Records = append(ev.Records, rec)
		}
	}
	if len(ev.Records) > 0 {
		resp, err := p.o.Handle(ctx, ev)
		failed := firstFailed(ev, resp)
		if err != nil {
			failed = aws.String(ev.Records[0].Change.SequenceNumber)
			p.o.Logger.Warn("streampoll: batch failed", "shard", id, "error", err.Error())
		}
		if failed != nil {
			it, ierr := p.iterator(ctx, id, types.ShardIteratorTypeAtSequenceNumber, failed)
			if ierr != nil {
				return len(out.Records), ierr
			}
			sh.iterator = it
			pause(ctx, p.o.RetryPause)
			return len(out.Records), nil
		}
	}
	sh.iterator = out.NextShardIterator
	sh.done = sh.iterator == nil
	return len(out.Records), nil
}

// firstFailed is the earliest record of ev the response lists as failed,
// where the event source would resume.
func firstFailed(ev awsevents.DynamoDBEvent, resp awsevents.DynamoDBEventResponse) *string {
	failed := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		failed[f.ItemIdentifier] = true
	}
	for _, r := range ev.Records {
		if failed[r.Change.SequenceNumber] {
			return aws.String(r.Change.SequenceNumber)
		}
	}
	return nil
}

// recordOf converts a stream record to the record Lambda delivers.
func recordOf(r types.Record, arn string) awsevents.DynamoDBEventRecord {
	rec := awsevents.DynamoDBEventRecord{
		AWSRegion: aws.ToString(r.AwsRegion), EventID: aws.ToString(r.EventID), EventName: string(r.EventName),
		EventSource: aws.ToString(r.EventSource), EventVersion: aws.ToString(r.EventVersion), EventSourceArn: arn,
	}
	if d := r.Dynamodb; d != nil {
		rec.Change = awsevents.DynamoDBStreamRecord{
			Keys: imageOf(d.Keys), NewImage: imageOf(d.NewImage), OldImage: imageOf(d.OldImage),
			SequenceNumber: aws.ToString(d.SequenceNumber), SizeBytes: aws.ToInt64(d.SizeBytes),
			StreamViewType: string(d.StreamViewType),
		}
		if t := d.ApproximateCreationDateTime; t != nil {
			rec.Change.ApproximateCreationDateTime = awsevents.SecondsEpochTime{Time: *t}
		}
	}
	return rec
}

func imageOf(m map[string]types.AttributeValue) map[string]awsevents.DynamoDBAttributeValue {
	if m == nil {
		return nil
	}
	out := make(map[string]awsevents.DynamoDBAttributeValue, len(m))
	for k, v := range m {
		out[k] = valueOf(v)
	}
	return out
}

func valueOf(v types.AttributeValue) awsevents.DynamoDBAttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return awsevents.NewStringAttribute(v.Value)
	case *types.AttributeValueMemberN:
		return awsevents.NewNumberAttribute(v.Value)
	case *types.AttributeValueMemberB:
		return awsevents.NewBinaryAttribute(v.Value)
	case *types.AttributeValueMemberBOOL:
		return awsevents.NewBooleanAttribute(v.Value)
	case *types.AttributeValueMemberNULL:
		return awsevents.NewNullAttribute()
	case *types.AttributeValueMemberSS:
		return awsevents.NewStringSetAttribute(v.Value)
	case *types.AttributeValueMemberNS:
		return awsevents.NewNumberSetAttribute(v.Value)
	case *types.AttributeValueMemberBS:
		return awsevents.NewBinarySetAttribute(v.Value)
	case *types.AttributeValueMemberL:
		l := make([]awsevents.DynamoDBAttributeValue, len(v.Value))
		for i, x := range v.Value {
			l[i] = valueOf(x)
		}
		return awsevents.NewListAttribute(l)
	case *types.AttributeValueMemberM:
		return awsevents.NewMapAttribute(imageOf(v.Value))
	}
	return awsevents.NewNullAttribute()
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
