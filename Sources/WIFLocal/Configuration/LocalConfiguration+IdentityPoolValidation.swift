extension LocalConfiguration {
    /// Checks the identity pools: ids are `REGION:UUID` and unique, every provider and role they name
    /// exists, and every role mapping is for a listed provider and complete.
    func checkIdentityPools(labels: ConfigurationLabels, into problems: inout [String]) {
        var ids: Set<String> = []
        let roleArns = Set(self.roles.map { self.arn(of: $0) })
        for (index, pool) in self.identityPools.enumerated() {
            let label = labels.identityPool(index)
            if !IdentityPoolDefinition.isPoolOrIdentityId(pool.id) {
                problems.append("\(label).id: must be REGION:UUID in lower case (us-east-1:00000000-0000-4000-8000-000000000001), not '\(pool.id)'")
            } else if !ids.insert(pool.id).inserted {
                problems.append("\(label).id: '\(pool.id)' is the id of an earlier pool")
            }
            if !(1...128).contains(pool.name.utf8.count) {
                problems.append("\(label).name: must be 1 to 128 characters long")
            }
            if pool.providers.count > 10 {
                problems.append("\(label).providers: a pool accepts at most 10 providers, not \(pool.providers.count)")
            }
            for (position, provider) in pool.providers.enumerated() {
                guard let profile = self.provider(named: provider.profile) else {
                    problems.append("\(label).providers[\(position)]: no provider profile is named '\(provider.profile)'")
                    continue
                }
                if profile.loginsKey == nil {
                    problems.append("\(label).providers[\(position)]: '\(provider.profile)' issues identity pool tokens; it cannot sign in to one")
                }
                for clientId in provider.clientIds ?? [] where !profile.clientIds.contains(clientId) {
                    problems.append("\(label).providers[\(position)].clientIds: '\(clientId)' is not a client id of '\(provider.profile)'")
                }
            }
            for (role, arn) in [("authenticated", pool.roles.authenticated), ("unauthenticated", pool.roles.unauthenticated)] {
                if let arn, !roleArns.contains(arn) {
                    problems.append("\(label).roles.\(role): no role has the ARN \(arn)")
                }
            }
            for (provider, mapping) in pool.roleMappings.sorted(by: { $0.key < $1.key }) {
                let path = "\(label).roleMappings.\(provider)"
                if !pool.providers.contains(where: { $0.profile == provider }) {
                    problems.append("\(path): '\(provider)' is not one of the pool's providers")
                }
                if mapping.kind == .rules, mapping.rules.isEmpty {
                    problems.append("\(path).rules: a Rules mapping needs at least one rule")
                }
                if mapping.rules.count > 25 {
                    problems.append("\(path).rules: a mapping has at most 25 rules, not \(mapping.rules.count)")
                }
                for (position, rule) in mapping.rules.enumerated() where !roleArns.contains(rule.roleArn) {
                    problems.append("\(path).rules[\(position)].roleArn: no role has the ARN \(rule.roleArn)")
                }
            }
        }
    }
}
