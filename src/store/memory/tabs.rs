//! The memory store's tab map and call records.

use super::MemoryStore;
use crate::{
    error::Result,
    store::{CallRecord, TabMap, Tabs},
};

impl Tabs for MemoryStore {
    fn tabs(&self) -> Result<TabMap> {
        Ok(self.inner().tabs.clone())
    }

    fn change_tabs(&self, change: &dyn Fn(&mut TabMap) -> bool) -> Result<()> {
        let mut inner = self.inner();
        self.fail(&mut inner, "update_tabs")?;
        change(&mut inner.tabs);
        Ok(())
    }

    fn save_call(&self, record: &CallRecord, agent: Option<&str>) -> Result<()> {
        let mut inner = self.inner();
        self.fail(&mut inner, "save_call")?;
        match agent {
            Some(a) => {
                inner.slots.insert(a.to_owned(), (record.clone(), true));
            }
            None => {
                inner.calls.insert(record.call.clone(), record.clone());
            }
        }
        Ok(())
    }

    fn take_call(&self, call: &str, agent: Option<&str>) -> Result<Option<CallRecord>> {
        let mut inner = self.inner();
        if let Some(a) = agent
            && let Some((r, open)) = inner.slots.get_mut(a)
            && *open
            && r.call == call
        {
            *open = false;
            return Ok(Some(r.clone()));
        }
        Ok(inner.calls.remove(call))
    }

    fn open_call_of(&self, agent: &str) -> Result<Option<CallRecord>> {
        Ok(self
            .inner()
            .slots
            .get(agent)
            .filter(|(_, open)| *open)
            .map(|(r, _)| r.clone()))
    }
}
