/** Bad operator or API input: `field` names what to fix (a 400 naming the field). Nothing was changed. */
export class AgentInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'AgentInputError';
  }
}

/** The MSISDN is registered already (409). */
export class AgentExistsError extends Error {
  constructor(readonly msisdn: string) {
    super('an agent with this MSISDN exists already');
    this.name = 'AgentExistsError';
  }
}

/** No agent has this MSISDN (404). */
export class AgentNotFoundError extends Error {
  constructor(readonly msisdn: string) {
    super('no agent with this MSISDN');
    this.name = 'AgentNotFoundError';
  }
}

/** The request does not fit the agent (a credit to an account-funded agent, 409). */
export class AgentConflictError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'AgentConflictError';
  }
}
