// Scripted meetings with the truth a summary is scored against: what was decided, who will do what
// by when, what was talked about. Used by the summary quality tests and `pnpm bench quality`.
// Plain words pocketsphinx knows; flite voices kal16, rms and awb are recognised best, so most
// tasks are spoken by them; slt and kal (slower) give the larger meetings their extra voices.
// Every stated task is in `tasks`; sentences that sound like tasks but are not (a forecast, a
// question, a past action) are left in on purpose, so precision is measured too.
import type { FliteVoice, MeetingScript } from "./synth";

export interface TruthTask {
  /** A participant's name, or "team" for "let's …". */
  owner: string;
  /** Verb first, as a person would write it down. */
  task: string;
  /** The deadline as said ("Friday", "next week"), when one was said. */
  due?: string;
}

export interface SummaryTruth {
  /** What was decided, in a few words each. */
  decisions: string[];
  tasks: TruthTask[];
  /** Noun phrases naming what was discussed. */
  topics: string[];
}

export interface SummaryMeeting {
  script: MeetingScript;
  truth: SummaryTruth;
}

/** The cast by name (its lower case is the id): each person's flite voice, with a stretch for the slower voices. */
type Cast = Record<string, FliteVoice | readonly [voice: FliteVoice, stretch: number]>;

/**
 * A meeting written as a play: the cast, then one `Name: what they say` line per turn, turns half a
 * second apart. A line naming nobody in the cast is a mistake in the fixture and throws.
 */
function play(name: string, cast: Cast, lines: string): MeetingScript {
  const speakers = Object.entries(cast).map(([person, voice]) => ({
    id: person.toLowerCase(),
    name: person,
    ...(typeof voice === "string" ? { voice } : { voice: voice[0], stretch: voice[1] }),
  }));
  const turns = lines
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [, person = "", text = ""] = /^(\S+):\s+(.+)$/.exec(line) ?? [];
      const speaker = speakers.find((s) => s.name === person);
      if (!speaker) throw new Error(`${name}: "${line}" is said by nobody in the cast`);
      return { speaker: speaker.id, text };
    });
  return { name, speakers, gap: 0.5, turns };
}

/** ≈35 s, the stand-up the issue describes. */
export const reportInvoiceStandup: SummaryMeeting = {
  script: play(
    "report-invoice-standup",
    { Alice: "kal16", Bob: "rms" },
    `
    Alice: Good morning Bob. Let us go through the open work for the customer project.
    Bob: The customer approved the design last week, so we can start the billing work.
    Alice: Good. Alice will prepare the final report by Friday.
    Bob: Bob will send the invoice to the customer next week.
    Alice: We decided to keep the current price for this year.
    Bob: That makes sense. The customer will be happy with that.
  `,
  ),
  truth: {
    decisions: ["keep the current price for this year"],
    tasks: [
      { owner: "Alice", task: "prepare the final report", due: "Friday" },
      { owner: "Bob", task: "send the invoice to the customer", due: "next week" },
    ],
    topics: ["customer project", "final report", "invoice"],
  },
};

/** ≈60 s, three people reviewing a web page design. */
export const designReview: SummaryMeeting = {
  script: play(
    "design-review",
    { Carol: "awb", Dave: "kal16", Erin: "rms" },
    `
    Carol: Thank you for coming. Today we review the new home page design.
    Dave: I think the main picture is too large on small phones.
    Erin: The search box is also hard to find at the top of the page.
    Carol: We agreed to move the search box to the center of the page.
    Dave: I will make a smaller picture for the phone version by Wednesday.
    Erin: I will test the new page with five customers next week.
    Carol: What colour should the buttons have?
    Dave: Blue works well with the logo.
    Carol: Then we decided to use blue buttons on every page.
    Carol: I will write the design guide for the team.
  `,
  ),
  truth: {
    decisions: ["move the search box to the center of the page", "use blue buttons on every page"],
    tasks: [
      { owner: "Dave", task: "make a smaller picture for the phone version", due: "Wednesday" },
      { owner: "Erin", task: "test the new page with five customers", due: "next week" },
      { owner: "Carol", task: "write the design guide for the team" },
    ],
    topics: ["home page design", "search box", "blue buttons"],
  },
};

/** ≈50 s, two people in sales going through open deals. */
export const salesPipeline: SummaryMeeting = {
  script: play(
    "sales-pipeline",
    { Frank: "rms", Grace: "kal16" },
    `
    Frank: Let us look at the sales numbers for this month.
    Grace: We closed three new contracts, and the bank deal is almost ready.
    Frank: The bank wants a lower price for the second year.
    Grace: We decided to offer a ten percent discount for the second year.
    Frank: I will call the bank manager tomorrow.
    Grace: I will update the price list before the next meeting.
    Frank: The hotel group will probably sign in the summer.
    Frank: Let us prepare a new offer for the hotel group by Monday.
  `,
  ),
  truth: {
    decisions: ["offer a ten percent discount for the second year"],
    tasks: [
      { owner: "Frank", task: "call the bank manager", due: "tomorrow" },
      { owner: "Grace", task: "update the price list", due: "before the next meeting" },
      { owner: "team", task: "prepare a new offer for the hotel group", due: "Monday" },
    ],
    topics: ["sales numbers", "bank deal", "hotel group"],
  },
};

/** ≈70 s, four people after a server outage. */
export const incidentReview: SummaryMeeting = {
  script: play(
    "incident-review",
    { Henry: "kal16", Maria: "rms", Oscar: "awb", Nina: ["slt", 1.1] },
    `
    Henry: This meeting is about the server outage on Sunday night.
    Maria: The database ran out of disk space and the web site stopped for two hours.
    Oscar: Nobody saw the alarm because it went to an old email address.
    Nina: Customers called the support line many times.
    Henry: We decided to send every alarm to the phone of the person on call.
    Maria: I will add more disk space to the database server today.
    Oscar: I will fix the alarm email address by Tuesday.
    Maria: I will write the outage report for the customers.
    Nina: The support team was very busy that night.
    Henry: We also agreed to test the alarms every month.
  `,
  ),
  truth: {
    decisions: ["send every alarm to the phone of the person on call", "test the alarms every month"],
    tasks: [
      { owner: "Maria", task: "add more disk space to the database server", due: "today" },
      { owner: "Oscar", task: "fix the alarm email address", due: "Tuesday" },
      { owner: "Maria", task: "write the outage report for the customers" },
    ],
    topics: ["server outage", "database disk space", "alarms"],
  },
};

/** ≈55 s, three people filling an open position. */
export const hiringSync: SummaryMeeting = {
  script: play(
    "hiring-sync",
    { Peter: "awb", Alice: "kal16", Bob: "rms" },
    `
    Peter: We need a new engineer for the data team.
    Alice: Twenty people applied for the job, and four of them look very good.
    Bob: Two of them live in another city.
    Peter: We agreed to offer remote work for this position.
    Alice: I will schedule the interviews for next week.
    Bob: I will prepare the technical test by Thursday.
    Peter: I will ask the finance team about the salary range.
    Alice: Did the last engineer leave a handover document?
    Bob: Yes, it is in the shared folder.
  `,
  ),
  truth: {
    decisions: ["offer remote work for this position"],
    tasks: [
      { owner: "Alice", task: "schedule the interviews", due: "next week" },
      { owner: "Bob", task: "prepare the technical test", due: "Thursday" },
      { owner: "Peter", task: "ask the finance team about the salary range" },
    ],
    topics: ["data team engineer", "remote work", "interviews"],
  },
};

/** ≈80 s, five people splitting next year's budget. */
export const budgetPlanning: SummaryMeeting = {
  script: play(
    "budget-planning",
    { Grace: "kal16", Frank: "rms", Carol: "awb", Erin: ["slt", 1.1], Dave: ["kal", 1.1] },
    `
    Grace: Good afternoon. Today we plan the budget for next year.
    Frank: The marketing budget was too small this year.
    Carol: The training budget was not used at all.
    Erin: Many people asked for training in the spring.
    Grace: We decided to move half of the training budget to marketing.
    Dave: The office rent goes up in January.
    Frank: I will get three offers for a smaller office next month.
    Carol: I will send the new budget table to everyone tomorrow.
    Grace: Grace will present the budget to the board in March.
    Erin: What about the travel budget?
    Grace: We agreed to keep the travel budget the same as this year.
    Frank: Thank you all.
  `,
  ),
  truth: {
    decisions: ["move half of the training budget to marketing", "keep the travel budget the same as this year"],
    tasks: [
      { owner: "Frank", task: "get three offers for a smaller office", due: "next month" },
      { owner: "Carol", task: "send the new budget table to everyone", due: "tomorrow" },
      { owner: "Grace", task: "present the budget to the board", due: "in March" },
    ],
    topics: ["budget for next year", "training budget", "office rent", "travel budget"],
  },
};

/** ≈45 s, two people planning a customer's first weeks. */
export const customerOnboarding: SummaryMeeting = {
  script: play(
    "customer-onboarding",
    { Nina: "kal16", Oscar: "awb" },
    `
    Nina: The new customer starts with our service on the first of June.
    Oscar: They have two hundred users and they need training.
    Nina: We decided to include two training sessions in the price.
    Oscar: I will create the user accounts by Friday.
    Nina: I will reserve the training room for the first session.
    Oscar: Their manager said the old system will stay online for one more month.
  `,
  ),
  truth: {
    decisions: ["include two training sessions in the price"],
    tasks: [
      { owner: "Oscar", task: "create the user accounts", due: "Friday" },
      { owner: "Nina", task: "reserve the training room for the first session" },
    ],
    topics: ["new customer", "training sessions", "user accounts"],
  },
};

/** ≈3 min, four people planning the next quarter: the long fixture. */
export const quarterlyRoadmap: SummaryMeeting = {
  script: play(
    "quarterly-roadmap",
    { Alice: "kal16", Bob: "rms", Carol: "awb", Dave: ["slt", 1.1] },
    `
    Alice: Good morning everyone. Today we plan the product roadmap for the next quarter.
    Bob: The mobile app is our biggest problem. Users say it is slow when they open it.
    Carol: The numbers agree. Half of the new users leave the app in the first week.
    Dave: The web version is fast, so the problem is in the mobile code.
    Alice: Then we decided to make the mobile app faster before we add new features.
    Bob: I will measure the start time of the app on old phones by Monday.
    Carol: I will look at the reviews in the app store and find the common problems.
    Alice: Next topic is the payment system. The bank changes its rules in the autumn.
    Bob: We must support the new rules or we cannot take card payments.
    Dave: The bank sent us a document with the new rules.
    Alice: We agreed to finish the payment changes by the end of September.
    Bob: I will read the bank document and plan the work this week.
    Carol: Do we need help from another team?
    Bob: Maybe from the security team, but I am not sure yet.
    Alice: Let us invite the security team to the next planning meeting.
    Alice: The last topic is the customer conference in October.
    Carol: Last year two hundred people came, and they liked the product demos.
    Dave: We could show the new reports at the conference.
    Alice: We decided to show the new reports at the conference.
    Carol: I will book the conference hotel by the end of the month.
    Alice: Alice will write the conference program next week.
    Bob: The conference will be in the same city as last year.
    Alice: To summarize, the app gets faster first, the payment changes come next, and we show the new reports in October.
    Alice: Thank you everyone.
  `,
  ),
  truth: {
    decisions: [
      "make the mobile app faster before adding new features",
      "finish the payment changes by the end of September",
      "show the new reports at the conference",
    ],
    tasks: [
      { owner: "Bob", task: "measure the start time of the app on old phones", due: "Monday" },
      { owner: "Carol", task: "look at the reviews in the app store and find the common problems" },
      { owner: "Bob", task: "read the bank document and plan the work", due: "this week" },
      { owner: "team", task: "invite the security team to the next planning meeting" },
      { owner: "Carol", task: "book the conference hotel", due: "by the end of the month" },
      { owner: "Alice", task: "write the conference program", due: "next week" },
    ],
    topics: ["mobile app speed", "payment system", "customer conference"],
  },
};

/** Every scored meeting, shortest first. */
export const summaryMeetings: readonly SummaryMeeting[] = [
  reportInvoiceStandup,
  customerOnboarding,
  salesPipeline,
  hiringSync,
  designReview,
  incidentReview,
  budgetPlanning,
  quarterlyRoadmap,
];
