// Scripted meetings with the truth a summary is scored against: what was decided, who will do what
// by when, what was talked about. Used by the summary quality tests and `pnpm bench quality`.
// Plain words pocketsphinx knows; flite voices kal16, rms and awb are recognised best, so most
// tasks are spoken by them; slt and kal (slower) give the larger meetings their extra voices.
// Every stated task is in `tasks`; sentences that sound like tasks but are not (a forecast, a
// question, a past action) are left in on purpose, so precision is measured too.
import type { MeetingScript } from "./synth";

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

/** ≈35 s, the stand-up the issue describes. */
export const reportInvoiceStandup: SummaryMeeting = {
  script: {
    name: "report-invoice-standup",
    speakers: [
      { id: "alice", name: "Alice", voice: "kal16" },
      { id: "bob", name: "Bob", voice: "rms" },
    ],
    gap: 0.5,
    turns: [
      { speaker: "alice", text: "Good morning Bob. Let us go through the open work for the customer project." },
      { speaker: "bob", text: "The customer approved the design last week, so we can start the billing work." },
      { speaker: "alice", text: "Good. Alice will prepare the final report by Friday." },
      { speaker: "bob", text: "Bob will send the invoice to the customer next week." },
      { speaker: "alice", text: "We decided to keep the current price for this year." },
      { speaker: "bob", text: "That makes sense. The customer will be happy with that." },
    ],
  },
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
  script: {
    name: "design-review",
    speakers: [
      { id: "carol", name: "Carol", voice: "awb" },
      { id: "dave", name: "Dave", voice: "kal16" },
      { id: "erin", name: "Erin", voice: "rms" },
    ],
    gap: 0.5,
    turns: [
      { speaker: "carol", text: "Thank you for coming. Today we review the new home page design." },
      { speaker: "dave", text: "I think the main picture is too large on small phones." },
      { speaker: "erin", text: "The search box is also hard to find at the top of the page." },
      { speaker: "carol", text: "We agreed to move the search box to the center of the page." },
      { speaker: "dave", text: "I will make a smaller picture for the phone version by Wednesday." },
      { speaker: "erin", text: "I will test the new page with five customers next week." },
      { speaker: "carol", text: "What colour should the buttons have?" },
      { speaker: "dave", text: "Blue works well with the logo." },
      { speaker: "carol", text: "Then we decided to use blue buttons on every page." },
      { speaker: "carol", text: "I will write the design guide for the team." },
    ],
  },
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
  script: {
    name: "sales-pipeline",
    speakers: [
      { id: "frank", name: "Frank", voice: "rms" },
      { id: "grace", name: "Grace", voice: "kal16" },
    ],
    gap: 0.5,
    turns: [
      { speaker: "frank", text: "Let us look at the sales numbers for this month." },
      { speaker: "grace", text: "We closed three new contracts, and the bank deal is almost ready." },
      { speaker: "frank", text: "The bank wants a lower price for the second year." },
      { speaker: "grace", text: "We decided to offer a ten percent discount for the second year." },
      { speaker: "frank", text: "I will call the bank manager tomorrow." },
      { speaker: "grace", text: "I will update the price list before the next meeting." },
      { speaker: "frank", text: "The hotel group will probably sign in the summer." },
      { speaker: "frank", text: "Let us prepare a new offer for the hotel group by Monday." },
    ],
  },
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
  script: {
    name: "incident-review",
    speakers: [
      { id: "henry", name: "Henry", voice: "kal16" },
      { id: "maria", name: "Maria", voice: "rms" },
      { id: "oscar", name: "Oscar", voice: "awb" },
      { id: "nina", name: "Nina", voice: "slt", stretch: 1.1 },
    ],
    gap: 0.5,
    turns: [
      { speaker: "henry", text: "This meeting is about the server outage on Sunday night." },
      { speaker: "maria", text: "The database ran out of disk space and the web site stopped for two hours." },
      { speaker: "oscar", text: "Nobody saw the alarm because it went to an old email address." },
      { speaker: "nina", text: "Customers called the support line many times." },
      { speaker: "henry", text: "We decided to send every alarm to the phone of the person on call." },
      { speaker: "maria", text: "I will add more disk space to the database server today." },
      { speaker: "oscar", text: "I will fix the alarm email address by Tuesday." },
      { speaker: "maria", text: "I will write the outage report for the customers." },
      { speaker: "nina", text: "The support team was very busy that night." },
      { speaker: "henry", text: "We also agreed to test the alarms every month." },
    ],
  },
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
  script: {
    name: "hiring-sync",
    speakers: [
      { id: "peter", name: "Peter", voice: "awb" },
      { id: "alice", name: "Alice", voice: "kal16" },
      { id: "bob", name: "Bob", voice: "rms" },
    ],
    gap: 0.5,
    turns: [
      { speaker: "peter", text: "We need a new engineer for the data team." },
      { speaker: "alice", text: "Twenty people applied for the job, and four of them look very good." },
      { speaker: "bob", text: "Two of them live in another city." },
      { speaker: "peter", text: "We agreed to offer remote work for this position." },
      { speaker: "alice", text: "I will schedule the interviews for next week." },
      { speaker: "bob", text: "I will prepare the technical test by Thursday." },
      { speaker: "peter", text: "I will ask the finance team about the salary range." },
      { speaker: "alice", text: "Did the last engineer leave a handover document?" },
      { speaker: "bob", text: "Yes, it is in the shared folder." },
    ],
  },
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
  script: {
    name: "budget-planning",
    speakers: [
      { id: "grace", name: "Grace", voice: "kal16" },
      { id: "frank", name: "Frank", voice: "rms" },
      { id: "carol", name: "Carol", voice: "awb" },
      { id: "erin", name: "Erin", voice: "slt", stretch: 1.1 },
      { id: "dave", name: "Dave", voice: "kal", stretch: 1.1 },
    ],
    gap: 0.5,
    turns: [
      { speaker: "grace", text: "Good afternoon. Today we plan the budget for next year." },
      { speaker: "frank", text: "The marketing budget was too small this year." },
      { speaker: "carol", text: "The training budget was not used at all." },
      { speaker: "erin", text: "Many people asked for training in the spring." },
      { speaker: "grace", text: "We decided to move half of the training budget to marketing." },
      { speaker: "dave", text: "The office rent goes up in January." },
      { speaker: "frank", text: "I will get three offers for a smaller office next month." },
      { speaker: "carol", text: "I will send the new budget table to everyone tomorrow." },
      { speaker: "grace", text: "Grace will present the budget to the board in March." },
      { speaker: "erin", text: "What about the travel budget?" },
      { speaker: "grace", text: "We agreed to keep the travel budget the same as this year." },
      { speaker: "frank", text: "Thank you all." },
    ],
  },
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
  script: {
    name: "customer-onboarding",
    speakers: [
      { id: "nina", name: "Nina", voice: "kal16" },
      { id: "oscar", name: "Oscar", voice: "awb" },
    ],
    gap: 0.5,
    turns: [
      { speaker: "nina", text: "The new customer starts with our service on the first of June." },
      { speaker: "oscar", text: "They have two hundred users and they need training." },
      { speaker: "nina", text: "We decided to include two training sessions in the price." },
      { speaker: "oscar", text: "I will create the user accounts by Friday." },
      { speaker: "nina", text: "I will reserve the training room for the first session." },
      { speaker: "oscar", text: "Their manager said the old system will stay online for one more month." },
    ],
  },
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
  script: {
    name: "quarterly-roadmap",
    speakers: [
      { id: "alice", name: "Alice", voice: "kal16" },
      { id: "bob", name: "Bob", voice: "rms" },
      { id: "carol", name: "Carol", voice: "awb" },
      { id: "dave", name: "Dave", voice: "slt", stretch: 1.1 },
    ],
    gap: 0.5,
    turns: [
      { speaker: "alice", text: "Good morning everyone. Today we plan the product roadmap for the next quarter." },
      { speaker: "bob", text: "The mobile app is our biggest problem. Users say it is slow when they open it." },
      { speaker: "carol", text: "The numbers agree. Half of the new users leave the app in the first week." },
      { speaker: "dave", text: "The web version is fast, so the problem is in the mobile code." },
      { speaker: "alice", text: "Then we decided to make the mobile app faster before we add new features." },
      { speaker: "bob", text: "I will measure the start time of the app on old phones by Monday." },
      { speaker: "carol", text: "I will look at the reviews in the app store and find the common problems." },
      { speaker: "alice", text: "Next topic is the payment system. The bank changes its rules in the autumn." },
      { speaker: "bob", text: "We must support the new rules or we cannot take card payments." },
      { speaker: "dave", text: "The bank sent us a document with the new rules." },
      { speaker: "alice", text: "We agreed to finish the payment changes by the end of September." },
      { speaker: "bob", text: "I will read the bank document and plan the work this week." },
      { speaker: "carol", text: "Do we need help from another team?" },
      { speaker: "bob", text: "Maybe from the security team, but I am not sure yet." },
      { speaker: "alice", text: "Let us invite the security team to the next planning meeting." },
      { speaker: "alice", text: "The last topic is the customer conference in October." },
      { speaker: "carol", text: "Last year two hundred people came, and they liked the product demos." },
      { speaker: "dave", text: "We could show the new reports at the conference." },
      { speaker: "alice", text: "We decided to show the new reports at the conference." },
      { speaker: "carol", text: "I will book the conference hotel by the end of the month." },
      { speaker: "alice", text: "Alice will write the conference program next week." },
      { speaker: "bob", text: "The conference will be in the same city as last year." },
      {
        speaker: "alice",
        text: "To summarize, the app gets faster first, the payment changes come next, and we show the new reports in October.",
      },
      { speaker: "alice", text: "Thank you everyone." },
    ],
  },
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
